// ClusterPanel: the Training page's "Cluster" group (off by default). When ticked, the engine is
// started through Open MPI's mpirun (gui/run/cluster_launch.h): an optional hostfile (empty: this
// machine), processes per host, the number of processes and NCCL's network interface. The values
// are the machine's, not the network's: the page keeps them in QSettings per project path.
#pragma once

#include <QGroupBox>

#include "gui/run/cluster_launch.h"

class QLineEdit;
class QSpinBox;
class QLabel;

namespace netsmith::gui {

class ClusterPanel : public QGroupBox {
  Q_OBJECT
 public:
  explicit ClusterPanel(QWidget* parent = nullptr);

  ClusterSettings settings() const;
  // Shows `s` without emitting edited().
  void setSettings(const ClusterSettings& s);
  // A line under the fields: where mpirun is, or that it is missing.
  void setNote(const QString& text, bool error);

 signals:
  void edited();

 private:
  QLineEdit* m_hostfile;
  QSpinBox* m_perHost;
  QSpinBox* m_processes;
  QLineEdit* m_nccl;
  QLabel* m_note;
  bool m_updating = false;
};

}  // namespace netsmith::gui
