// PlanBox: the Training page's "Plan (before starting)" tab: what a run would be on the devices
// ticked (devices, logical batch, learning rate, iterations, epochs, data, memory, warnings), as
// `netsmith-cli train --dry-run --json` gives it for a snapshot of the document, and above it the
// ClassCountBar (Note [Classifier head]). A plan that fails says why in red and is the run's
// refusal: the page keeps Start disabled until a plan succeeds.
//
// The plan is made again 400 ms after the last edit (refreshSoon), when the page shows, and when a
// run ends; never while a run trains (setRunning): its started event shows the engine's own plan.
#pragma once

#include <QTimer>
#include <QWidget>
#include <memory>

#include "gui/run/engine_event.h"

class QLabel;
class QProcess;
class QPushButton;
class QTemporaryDir;

namespace netsmith::gui {

class ClusterPanel;
class ProjectDocument;

class PlanBox : public QWidget {
  Q_OBJECT
 public:
  // `cluster`: the Cluster group, whose processes the plan adds up for the whole job.
  PlanBox(ProjectDocument* doc, const ClusterPanel* cluster, QWidget* parent = nullptr);
  ~PlanBox() override;

  // Asks the engine for the plan now; nothing while a run trains.
  void refresh();
  // refresh() once edits settle: `delayMs` after the last call (the timer keeps the last delay).
  void refreshSoon() { m_debounce.start(); }
  void refreshAfter(int delayMs) { m_debounce.start(delayMs); }
  void showPlan(const TrainingPlan& plan);
  void setRunning(bool running) { m_running = running; }

  QString text() const;
  // Note [Memory before launch]: the config.batch_size at which the most loaded device holds the
  // largest batch the plan says fits (0: not known); the "largest batch" button applies it.
  int64_t largestBatchSize() const { return m_largestBatchSize; }
  void applyLargestBatch();
  // Why the last plan says the run cannot train; empty when it can.
  const QString& refusal() const { return m_refusal; }

 signals:
  void planUpdated();     // a plan, or the reason there is none, is shown
  void refusalChanged();  // refusal() was set again (Start follows it)

 private:
  void setRefusal(const QString& why);

  ProjectDocument* m_doc;
  const ClusterPanel* m_cluster;
  QLabel* m_text;
  QPushButton* m_largest;
  int64_t m_largestBatchSize = 0;
  QTimer m_debounce;
  QProcess* m_query = nullptr;
  std::unique_ptr<QTemporaryDir> m_dir;  // the snapshot the dry run reads
  QString m_refusal;
  bool m_running = false;
};

}  // namespace netsmith::gui
