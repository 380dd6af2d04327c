// RunControl: the Training page's run: the engine child process it starts (`netsmith-cli train`
// into a new run folder, or `train --resume RUN`), pauses, resumes and stops, or the run of this
// project that another process trains and the page follows (Note [The run outlives its console]);
// the run's state and outcome; its events fed to the learning curve (TrainingCharts) and to the
// run history (the run shown as active), and said in words as the status line and the engine log.
//
// It draws nothing itself: what the page's other parts show comes as signals (statusChanged,
// logged, started, deviceFigures), so the page decides where.
//
// A run trains a snapshot of the document as it is (unsaved edits included) in a new run folder;
// the user's project file is not touched. An engine that fails, crashes or is killed leaves the
// editor and the document as they were, and the run is shown as failed with the reason.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <optional>

#include "gui/run/engine_process.h"
#include "gui/run/run_follower.h"
#include "gui/training/run_history.h"

namespace netsmith::gui {

struct AdoptedRuns;
class ProjectDocument;
class RunHistoryPanel;
class TrainingCharts;

enum class RunState { Idle, Starting, Running, Paused, Stopping };

// The time a run has trained: this page's session (since its engine or follow began) and, for a
// resume or a follow, the sessions before it, as their events said (each one's last elapsed_s).
struct RunClock {
  QElapsedTimer session;
  double pastSessions = 0;  // the sessions before the last `started` replayed
  double lastSession = 0;   // the last replayed session's
  double before = 0;        // all of them: the run's time before this session
  double sessionSeconds() const { return session.elapsed() / 1000.0; }
  void reset() { pastSessions = lastSession = before = 0; }
};

class RunControl : public QObject {
  Q_OBJECT
 public:
  RunControl(ProjectDocument* doc, TrainingCharts* charts, RunHistoryPanel* history, QObject* parent = nullptr);
  ~RunControl() override;

  void setExtraArguments(const QStringList& args) { m_extraArguments = args; }
  // A new run of the document on the project's devices (through mpirun when `cluster` says so).
  // False, with the reason as statusChanged, when the network is not valid or a run is going.
  bool start(const ClusterSettings& cluster);
  // Continues the run in `folder` from its newest checkpoint, on `ticked` devices when given,
  // else on the run's own.
  bool resumeRun(const QString& folder, const std::optional<QStringList>& ticked, const ClusterSettings& cluster);
  bool followRun(const QString& folder);
  // Follows the history's run that is still training, if there is one and nothing else runs.
  void followRunningRunInHistory();
  void pause();
  void resume();
  void stop();
  void leaveRunToItself(bool stopFirst);
  // Note [Runs before the first Save]: moves the runs of `unsavedRoot` to runsRoot(); the sentence
  // for the status bar.
  QString adoptUnsavedRuns(const QString& unsavedRoot);
  // Another project: the run shown is not its run (a followed run goes on without the page).
  void forgetRun();

  RunState state() const { return m_state; }
  bool isRunning() const { return m_state != RunState::Idle; }
  bool isFollowing() const { return m_follower.isFollowing(); }
  bool canResumeLastRun() const;
  QString lastRunFolder() const;
  QString runFolder() const { return m_runFolder; }
  QString runsRoot() const;
  EngineProcess* engine() { return &m_engine; }
  const EngineProcess* engine() const { return &m_engine; }
  std::optional<RunOutcome> lastOutcome() const { return m_lastOutcome; }
  int iterationEvents() const { return m_iterationEvents; }
  int epochEvents() const { return m_epochEvents; }
  bool sawFinishedEvent() const { return m_sawFinished; }

 signals:
  void stateChanged(bool wasRunning);
  void statusChanged(const QString& text, bool error);
  void logged(const QString& text, bool html);
  void viewCleared();  // a new run or a resume: the previous run's charts and log go
  void started(const StartedEvent& event);
  void deviceFigures(const QList<DeviceSample>& devices);
  // The run shown moved (the first Save): the status line names its new place (native separators).
  void runMoved(const QString& from, const QString& to);
  void historyChanged();                     // runs ended or moved: the history reads them again
  void finished(const RunOutcome& outcome);  // after the status says how it ended
  // Note [Divergence]: the block where the run shown diverged and why, or an empty block when a
  // new run (or resume) is shown and the last one's mark goes.
  void divergedBlockChanged(const QString& block, const QString& reason);

 private:
  void setState(RunState state);
  void setStatus(const QString& text, bool error = false) { emit statusChanged(text, error); }
  void logLine(const QString& text) { emit logged(text, false); }
  void logHtml(const QString& html) { emit logged(html, true); }
  void clearRunView();
  bool launchEngine(QStringList args, const QString& status, const ClusterSettings& cluster);
  void onEvent(const EngineEvent& event);
  void onLog(const QString& line, LogKind kind);
  void onFinished(const RunOutcome& outcome);
  // An event of the run's past (events.jsonl before a resume or a follow): its losses on the curve.
  void replayEvent(const EngineEvent& event);
  void replayRunEvents(const QString& folder);
  void moveAdoptedRunWhenEnded();
  void followMovedRun(const AdoptedRuns& adopted, const QString& fromRoot);

  ProjectDocument* m_doc;
  TrainingCharts* m_charts;
  RunHistoryPanel* m_history;
  EngineProcess m_engine;
  RunFollower m_follower;
  RunState m_state = RunState::Idle;
  QStringList m_extraArguments;
  QString m_runFolder;
  std::optional<RunOutcome> m_lastOutcome;
  bool m_resuming = false;  // the engine runs a --resume
  QString m_adoptFrom;      // Note [Runs before the first Save]: the unsaved root the active run leaves
  RunClock m_clock;
  long long m_maxEpoch = 0;
  int m_iterationEvents = 0, m_epochEvents = 0;
  bool m_sawFinished = false;
  QString m_scalingVerdict;  // of the last finished run (Note [Scaling verdict])
};

}  // namespace netsmith::gui
