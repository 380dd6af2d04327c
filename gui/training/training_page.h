// TrainingPage: choose devices and the lr_policy, read the plan before starting (from
// `netsmith-cli train --dry-run --json`), start / pause / resume / stop a run of the engine child
// process, watch it in live charts, a status line and the engine log, compare with past runs, and
// resume a stopped or failed run (`train --resume RUN --devices TICKED`) from the page or the run
// history.
//
// Its parts, one file each: training_page.cpp (the layout and its wiring, the buttons' state),
// training_page_plan.cpp (devices, lr_policy, the cluster group and the plan), training_page_run.cpp
// (starting and resuming the engine and showing its events), run_history_panel.cpp (the history).
//
// A run trains a snapshot of the document as it is (unsaved edits included) in a new run folder;
// the user's project file is not touched. An engine that fails, crashes or is killed leaves the
// editor and the document as they were, and the run is shown as failed with the reason.
#pragma once

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <memory>
#include <QTimer>
#include <QWidget>

#include "gui/document/project_document.h"
#include "gui/run/engine_process.h"
#include "gui/run/run_follower.h"
#include "gui/training/run_history.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QProcess;
class QPushButton;
class QTabWidget;

namespace netsmith::gui {

struct AdoptedRuns;
class ClusterPanel;
class DeviceTable;
class JobDeviceTree;
class RunHistoryPanel;
class TrainingCharts;

class TrainingPage : public QWidget {
  Q_OBJECT
 public:
  enum class State { Idle, Starting, Running, Paused, Stopping };
  // Note [Training page layout]: a device chart is never smaller than this, so that its axis
  // labels and tick labels have room (they were about 70 px tall in a grid of five at 1366×768).
  static constexpr int kDeviceChartMinimumHeight = 170;

  explicit TrainingPage(ProjectDocument* doc, QWidget* parent = nullptr);
  ~TrainingPage() override;

  // Extra arguments for `netsmith-cli train` (tests use --max-epoch 1 --train-samples 512 ...).
  void setExtraArguments(const QStringList& args) { m_extraArguments = args; }

  // The same as the buttons. start() returns false, with the reason in statusText(), when the
  // network is not valid or a run is going.
  bool start();
  void pause();
  void resume();
  void stop();
  // Continues the run in `folder` from its newest checkpoint (`train --resume`), on the devices
  // ticked on the page when onTickedDevices, else on the run's own. False, with the reason in
  // statusText(), when a run is going or the folder has nothing to resume.
  bool resumeRun(const QString& folder, bool onTickedDevices);
  // The last run stopped or failed with a checkpoint: the Resume button continues it.
  bool canResumeLastRun() const;
  bool resumeLastRun() { return resumeRun(lastRunFolder(), true); }
  // The run the page shows, or after a project was opened, its newest run.
  QString lastRunFolder() const;
  // Follows a run of this project that another process trains (one a closed or killed console
  // left training, Note [The run outlives its console]): the page shows it as its own, Stop
  // stops it; it cannot be paused. False when the page is busy or the folder is not in use.
  bool followRun(const QString& folder);
  bool isFollowing() const { return m_follower.isFollowing(); }
  // The console closes while a run trains: the engine goes on alone (stopFirst: asked to stop
  // at its next iteration, writing a checkpoint) and the page lets go of it.
  void leaveRunToItself(bool stopFirst);
  // The first Save of a project trained before it had a file (Note [Runs before the first
  // Save]): the runs in `unsavedRoot` move into the project's runs folder, the one still
  // training once it ends. The sentence for the status bar ("" when nothing moved).
  QString adoptUnsavedRuns(const QString& unsavedRoot);

  State state() const { return m_state; }
  bool isRunning() const { return m_state != State::Idle; }
  EngineProcess* engine() { return &m_engine; }
  TrainingCharts* charts() const { return m_charts; }
  DeviceTable* deviceTable() const { return m_devices; }
  ClusterPanel* clusterPanel() const { return m_cluster; }
  JobDeviceTree* jobDevices() const { return m_jobDevices; }
  // The Cluster group's values (kept in QSettings per project path, never in the project).
  ClusterSettings clusterSettings() const;
  void setClusterSettings(const ClusterSettings& settings);
  QString statusText() const;
  QString planText() const;
  QString logText() const;
  QString currentRunFolder() const { return m_runFolder; }
  std::optional<RunOutcome> lastOutcome() const { return m_lastOutcome; }
  QList<RunSummary> history() const;
  RunHistoryPanel* historyPanel() const { return m_history; }
  int iterationEvents() const { return m_iterationEvents; }
  int epochEvents() const { return m_epochEvents; }
  bool sawFinishedEvent() const { return m_sawFinished; }

  // Re-reads devices (`devices --json`) and the plan (`--dry-run`).
  void refreshDevices();
  void refreshPlan();
  void refreshHistory();

 signals:
  void runningChanged(bool running);
  void planUpdated();
  void devicesUpdated();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void onEvent(const EngineEvent& event);
  // An event of the run's past (events.jsonl before a resume or a follow): its losses on the curve.
  void replayEvent(const EngineEvent& event);
  void replayRunEvents(const QString& folder);
  void followRunningRunInHistory();
  void moveAdoptedRunWhenEnded();
  void followMovedRun(const AdoptedRuns& adopted, const QString& fromRoot);
  void onFinished(const RunOutcome& outcome);
  void onLog(const QString& line, LogKind kind);
  void setState(State state);
  void applyDeviceEdit();
  void applyPolicyEdit();
  void showProjectSettings();
  void showPlan(const TrainingPlan& plan);
  void setStatus(const QString& text, bool error = false);
  QString runsRoot() const;
  void clearRunView();
  bool launchEngine(QStringList args, const QString& status);
  void loadClusterSettingsForProject();
  void clusterEdited();
  void showClusterPlan();
  QStringList rankHosts() const;

  ProjectDocument* m_doc;
  EngineProcess m_engine;
  RunFollower m_follower;
  // The run's time before this page's engine or follow began: its sessions' last elapsed_s.
  double m_pastSessionsSeconds = 0;  // the sessions before the last `started` replayed
  double m_sessionSeconds = 0;       // the last replayed session's
  double m_secondsBefore = 0;
  QString m_adoptFrom;         // Note [Runs before the first Save]: the unsaved root the active run leaves
  State m_state = State::Idle;
  QStringList m_extraArguments;
  QString m_runFolder;
  std::optional<RunOutcome> m_lastOutcome;
  bool m_resuming = false;  // the engine runs a --resume
  int m_iterationEvents = 0, m_epochEvents = 0;
  bool m_sawFinished = false;
  QString m_scalingVerdict;  // of the last finished run (Note [Scaling verdict])
  long long m_maxEpoch = 0;
  QElapsedTimer m_elapsed;
  QTimer m_planDebounce;
  QProcess* m_planQuery = nullptr;
  // The last plan said the run cannot train (a dataset that does not load, a setting the engine
  // refuses): Start stays disabled until a plan succeeds, with the reason as its tooltip.
  QString m_planRefusal;
  void setPlanRefusal(const QString& why);
  QProcess* m_devicesQuery = nullptr;
  std::unique_ptr<QTemporaryDir> m_planDir;

  DeviceTable* m_devices;
  ClusterPanel* m_cluster;
  JobDeviceTree* m_jobDevices;
  QString m_clusterPath;  // the project path m_cluster's values belong to
  QComboBox* m_policy;
  QLabel* m_gpuNote;
  QLabel* m_plan;
  QPushButton *m_start, *m_pause, *m_stop, *m_resumeRun;
  RunHistoryPanel* m_history;
  QLabel* m_status;
  QCheckBox* m_logScale;
  QPlainTextEdit* m_log;
  QCustomPlot *m_curvePlot, *m_utilPlot, *m_memPlot, *m_timingPlot, *m_temperaturePlot, *m_powerPlot;
  QTabWidget* m_deviceCharts;  // the device charts, a tab per thing to watch
  int m_sensorTab = -1;         // temperature and power: shown once a GPU reports them
  TrainingCharts* m_charts;
};

}  // namespace netsmith::gui
