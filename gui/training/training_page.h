// TrainingPage: choose devices and the lr_policy, read the plan before starting (from
// `netsmith-cli train --dry-run --json`), start / pause / resume / stop a run of the engine child
// process, watch it in live charts, a status line and the engine log, compare with past runs, and
// resume a stopped or failed run (`train --resume RUN --devices TICKED`) from the page or the run
// history.
//
// The page composes its parts and wires their signals (training_page.cpp, with the layout and
// which buttons a state allows): DevicesBox (the devices, the lr_policy and the Cluster group's
// values), PlanBox (the plan), RunHistoryPanel (the history), ChartsPanel (the charts and the
// engine log), StatusLine, and RunControl (the run itself: the engine child process or a followed
// run, its state and its events).
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "gui/document/project_document.h"
#include "gui/run/engine_process.h"
#include "gui/training/charts_panel.h"
#include "gui/training/run_control.h"
#include "gui/training/run_history.h"

class QCheckBox;
class QPushButton;

namespace netsmith::gui {

class ClusterPanel;
class DeviceTable;
class DevicesBox;
class JobDeviceTree;
class PlanBox;
class RunHistoryPanel;
class StatusLine;
class TrainingCharts;

class TrainingPage : public QWidget {
  Q_OBJECT
 public:
  using State = RunState;
  static constexpr int kDeviceChartMinimumHeight = ChartsPanel::kDeviceChartMinimumHeight;

  explicit TrainingPage(ProjectDocument* doc, QWidget* parent = nullptr);
  ~TrainingPage() override;

  // Extra arguments for `netsmith-cli train` (tests use --max-epoch 1 --train-samples 512 ...).
  void setExtraArguments(const QStringList& args) { m_run->setExtraArguments(args); }

  // The same as the buttons. start() returns false, with the reason in statusText(), when the
  // network is not valid or a run is going.
  bool start();
  void pause() { m_run->pause(); }
  void resume() { m_run->resume(); }
  void stop() { m_run->stop(); }
  // Continues the run in `folder` from its newest checkpoint (`train --resume`), on the devices
  // ticked on the page when onTickedDevices, else on the run's own. False, with the reason in
  // statusText(), when a run is going or the folder has nothing to resume.
  bool resumeRun(const QString& folder, bool onTickedDevices);
  // The last run stopped or failed with a checkpoint: the Resume button continues it.
  bool canResumeLastRun() const { return m_run->canResumeLastRun(); }
  bool resumeLastRun() { return resumeRun(lastRunFolder(), true); }
  // The run the page shows, or after a project was opened, its newest run.
  QString lastRunFolder() const { return m_run->lastRunFolder(); }
  // Follows a run of this project that another process trains (one a closed or killed console
  // left training, Note [The run outlives its console]): the page shows it as its own, Stop
  // stops it; it cannot be paused. False when the page is busy or the folder is not in use.
  bool followRun(const QString& folder) { return m_run->followRun(folder); }
  bool isFollowing() const { return m_run->isFollowing(); }
  // The console closes while a run trains: the engine goes on alone (stopFirst: asked to stop
  // at its next iteration, writing a checkpoint) and the page lets go of it.
  void leaveRunToItself(bool stopFirst) { m_run->leaveRunToItself(stopFirst); }
  // The first Save of a project trained before it had a file (Note [Runs before the first
  // Save]): the runs in `unsavedRoot` move into the project's runs folder, the one still
  // training once it ends. The sentence for the status bar ("" when nothing moved).
  QString adoptUnsavedRuns(const QString& unsavedRoot) { return m_run->adoptUnsavedRuns(unsavedRoot); }

  State state() const { return m_run->state(); }
  bool isRunning() const { return m_run->isRunning(); }
  EngineProcess* engine() { return m_run->engine(); }
  TrainingCharts* charts() const;
  DeviceTable* deviceTable() const;
  ClusterPanel* clusterPanel() const;
  JobDeviceTree* jobDevices() const;
  // The Cluster group's values (kept in QSettings per project path, never in the project).
  ClusterSettings clusterSettings() const;
  void setClusterSettings(const ClusterSettings& settings);
  QString statusText() const;
  QString planText() const;
  QString logText() const;
  QString currentRunFolder() const { return m_run->runFolder(); }
  std::optional<RunOutcome> lastOutcome() const { return m_run->lastOutcome(); }
  QList<RunSummary> history() const;
  RunHistoryPanel* historyPanel() const { return m_history; }
  int iterationEvents() const { return m_run->iterationEvents(); }
  int epochEvents() const { return m_run->epochEvents(); }
  bool sawFinishedEvent() const { return m_run->sawFinishedEvent(); }

  // Re-reads devices (`devices --json`) and the plan (`--dry-run`).
  void refreshDevices();
  void refreshPlan();
  void refreshHistory();

 signals:
  void runningChanged(bool running);
  // RunControl::divergedBlockChanged: the main window marks the block on the Edit page's canvas.
  void divergedBlockChanged(const QString& block, const QString& reason);
  void planUpdated();
  void devicesUpdated();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  // The buttons and the parts that can be edited, as the run's state and the plan allow.
  void showState();
  void onStateChanged(bool wasRunning);
  void onStarted(const StartedEvent& event);
  void setStatus(const QString& text, bool error = false);
  void onProjectLoaded();

  ProjectDocument* m_doc;
  DevicesBox* m_devices;
  PlanBox* m_plan;
  RunHistoryPanel* m_history;
  ChartsPanel* m_chartsPanel;
  StatusLine* m_status;
  QPushButton *m_start, *m_pause, *m_stop, *m_resumeRun;
  QCheckBox* m_logScale;
  // Destroyed before the page's widgets: the engine child dies with the page, its outcome not shown.
  std::unique_ptr<RunControl> m_run;
};

}  // namespace netsmith::gui
