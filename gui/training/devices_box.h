// DevicesBox: the Training page's "Devices" group: the devices to train on (DeviceTable, from
// `netsmith-cli devices --json`), the lr_policy, a note on GPUs, and — when the Cluster group is
// ticked — the job's devices by rank (JobDeviceTree). It writes the ticks and the policy to the
// project as undoable edits (parallel.devices, parallel.worker_load, parallel.lr_policy) and shows
// the project's values after an undo or a load.
//
// It also makes the Cluster group (ClusterPanel, which the page moves into a tab of its own) and
// keeps its values: they are the machine's, not the network's, so they live in QSettings per
// project path.
#pragma once

#include <QGroupBox>
#include <vector>

#include "gui/run/cluster_launch.h"
#include "gui/run/engine_event.h"

class QComboBox;
class QLabel;
class QProcess;

namespace netsmith::gui {

class ClusterPanel;
class DeviceTable;
class JobDeviceTree;
class ProjectDocument;

class DevicesBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit DevicesBox(ProjectDocument* doc, QWidget* parent = nullptr);
  ~DevicesBox() override;

  DeviceTable* table() const { return m_table; }
  JobDeviceTree* jobDevices() const { return m_jobDevices; }
  ClusterPanel* cluster() const { return m_cluster; }

  // Re-reads the devices (`devices --json`); devicesUpdated() when done.
  void refreshDevices();
  // The project's devices, loads and lr_policy; the cluster's devices too unless a run trains.
  void showProjectSettings();
  // While a run trains the devices, the policy and the Cluster group cannot be edited.
  void setRunning(bool running);

  ClusterSettings clusterSettings() const;
  void setClusterSettings(const ClusterSettings& settings);  // as if edited
  void loadClusterSettingsForProject();
  // After a Save As: the values shown are kept under the project's new path.
  void keepClusterSettingsUnderPath();
  // The hosts the ranks of the Cluster group's job run on (its hostfile read), in rank order.
  QStringList rankHosts() const;
  // The job's devices as the engine started them.
  void showStartedJob(const std::vector<PlannedDevice>& devices);

 signals:
  void devicesUpdated();
  void clusterEdited();                  // the plan changes with it
  void refused(const QString& message);  // an edit that cannot be made ("tick at least one device")

 private:
  void applyDeviceEdit();
  void applyPolicyEdit();
  void onClusterEdited();
  void showClusterPlan();

  ProjectDocument* m_doc;
  ClusterPanel* m_cluster;
  DeviceTable* m_table;
  QComboBox* m_policy;
  QLabel* m_gpuNote;
  JobDeviceTree* m_jobDevices;
  QString m_clusterPath;  // the project path m_cluster's values belong to
  QProcess* m_devicesQuery = nullptr;
  bool m_running = false;
};

}  // namespace netsmith::gui
