// RunControl (run_control.h): a run of the engine started, resumed, followed, paused and stopped,
// and how it ended; the runs it moves after the first Save. Its events: run_control_events.cpp.
#include "gui/training/run_control.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/project/project_io.h"
#include "gui/document/project_document.h"
#include "gui/run/cli_command.h"
#include "gui/training/figures_text.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/training_charts.h"
#include "gui/training/unsaved_runs.h"

namespace netsmith::gui {

RunControl::RunControl(ProjectDocument* doc, TrainingCharts* charts, RunHistoryPanel* history, QObject* parent)
    : QObject(parent), m_doc(doc), m_charts(charts), m_history(history) {
  m_engine.setProgram(engineProgram());
  connect(&m_engine, &EngineProcess::eventReceived, this, &RunControl::onEvent);
  connect(&m_engine, &EngineProcess::finished, this, &RunControl::onFinished);
  connect(&m_engine, &EngineProcess::logLine, this, &RunControl::onLog);
  connect(&m_follower, &RunFollower::pastEvent, this, &RunControl::replayEvent);
  connect(&m_follower, &RunFollower::eventReceived, this, &RunControl::onEvent);
  connect(&m_follower, &RunFollower::finished, this, &RunControl::onFinished);
  connect(&m_follower, &RunFollower::logLine, this, &RunControl::onLog);
}

RunControl::~RunControl() {
  // The engine child dies with the page (EngineProcess kills it); its outcome is not shown.
  m_engine.disconnect(this);
  m_follower.disconnect(this);
}

QString RunControl::runsRoot() const { return runsRootFor(m_doc->path(), qs(m_doc->settings().name)); }

void RunControl::setState(RunState state) {
  const bool wasRunning = isRunning();
  m_state = state;
  emit stateChanged(wasRunning);
}

// The page checks its plan first (PlanBox::refusal()).
bool RunControl::start(const ClusterSettings& cluster) {
  if (isRunning()) return false;
  const auto& analysis = m_doc->graph()->analysis();
  if (!analysis.valid) {
    setStatus(tr("Cannot start: the network has %n problem(s). Fix the red blocks on the Edit page first.", nullptr,
                 analysis.problemCount()),
              true);
    return false;
  }
  // A new run folder; the engine trains a snapshot of the document written into it.
  QDir root(runsRoot());
  const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString name = stamp;
  for (int n = 2; root.exists(name); ++n) name = stamp + QStringLiteral("-%1").arg(n);
  if (!root.mkpath(name)) {
    setStatus(tr("Cannot start: cannot create the run folder %1").arg(root.filePath(name)), true);
    return false;
  }
  m_runFolder = root.filePath(name);
  const QString snapshot = QDir(m_runFolder).filePath(QStringLiteral("project.nsproj"));
  try {
    saveProject(m_doc->toProject(), ss(snapshot));
  } catch (const Error& e) {
    setStatus(tr("Cannot start: %1").arg(qs(e.what())), true);
    return false;
  }
  clearRunView();
  m_maxEpoch = m_doc->settings().config.maxEpoch;
  m_resuming = false;
  QStringList args{QStringLiteral("train"), snapshot, QStringLiteral("--run-dir"), m_runFolder, QStringLiteral("--events"),
                   QStringLiteral("-")};
  args << m_extraArguments;
  return launchEngine(args, tr("Starting the engine…"), cluster);
}

// A new run or a resume: the previous run's charts, figures, log and outcome go.
void RunControl::clearRunView() {
  emit viewCleared();
  emit divergedBlockChanged({}, {});  // the last run's mark goes with its view
  m_iterationEvents = m_epochEvents = 0;
  m_sawFinished = false;
  m_scalingVerdict.clear();
  m_lastOutcome.reset();
  m_clock.reset();
}

bool RunControl::launchEngine(QStringList args, const QString& status, const ClusterSettings& cluster) {
  m_clock.session.start();
  m_history->setActiveFolder(m_runFolder);
  setState(RunState::Starting);
  setStatus(cluster.enabled ? tr("%1 (through mpirun, %n process(es))", nullptr, cluster.processes).arg(status) : status);
  m_engine.setProgram(engineProgram());
  m_engine.setCluster(cluster);
  m_engine.start(args, m_runFolder);
  return true;
}

namespace {

// The run's devices as its run.json "training" records them (Note [Resume on other devices]):
// "cpu:0,cpu:1", or empty for a folder of an older version.
QString recordedDevices(const QString& folder) {
  QFile f(QDir(folder).filePath(QStringLiteral("run.json")));
  if (!f.open(QIODevice::ReadOnly)) return {};
  const auto record = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
  if (!record.is_object() || !record.contains("training") || !record["training"].is_object()) return {};
  QStringList ids;
  for (const auto& d : record["training"].value("devices", nlohmann::json::array()))
    if (d.is_object() && d.contains("id") && d["id"].is_string()) ids << QString::fromStdString(d["id"].get<std::string>());
  return ids.join(QLatin1Char(','));
}

}  // namespace

QString RunControl::lastRunFolder() const {
  if (!m_runFolder.isEmpty()) return m_runFolder;
  const QList<RunSummary> runs = m_history->runs();
  return runs.isEmpty() ? QString() : runs.front().folder;
}

bool RunControl::canResumeLastRun() const {
  if (isRunning()) return false;
  if (m_runFolder.isEmpty()) {
    // A project just opened shows no run yet: its newest run, as the history reads it.
    const QList<RunSummary> runs = m_history->runs();
    return !runs.isEmpty() && runs.front().resumable();
  }
  if (!m_lastOutcome || m_lastOutcome->status == RunOutcome::Status::Completed) return false;
  return summariseRun(m_runFolder).hasCheckpoint;
}

// The engine continues the run in its own folder (`train --resume`), which it locks: a run that a
// terminal is already resuming is refused with the engine's message. The extra arguments of a
// new run (--max-epoch, sample limits) are the run's own settings now and are not given again.
bool RunControl::resumeRun(const QString& folder, const std::optional<QStringList>& tickedDevices,
                           const ClusterSettings& cluster) {
  if (isRunning()) return false;
  const RunSummary run = summariseRun(folder);
  if (!run.hasCheckpoint) {
    setStatus(tr("Cannot resume %1: it has no checkpoint to continue from.").arg(QDir::toNativeSeparators(folder)), true);
    return false;
  }
  QStringList args{QStringLiteral("train"), QStringLiteral("--resume"), folder, QStringLiteral("--events"), QStringLiteral("-")};
  const QString before = recordedDevices(folder);
  QString where;
  if (tickedDevices) {
    const QStringList& ticked = *tickedDevices;
    if (ticked.isEmpty()) {
      setStatus(tr("Cannot resume: tick at least one device to train on."), true);
      return false;
    }
    args << QStringLiteral("--devices") << ticked.join(QLatin1Char(','));
    where = before.isEmpty() || before == ticked.join(QLatin1Char(','))
                ? tr(" on %1").arg(ticked.join(QStringLiteral(", ")))
                : tr(" on %1 (was %2): the devices share the run's logical batch").arg(ticked.join(QStringLiteral(", ")), before);
  }
  m_runFolder = QFileInfo(folder).absoluteFilePath();
  clearRunView();
  // What was trained before, so that the curve goes on from it (the resume's own
  // resumed_from_checkpoint then drops what it trains again).
  replayRunEvents(m_runFolder);
  m_resuming = true;
  return launchEngine(args, tr("Resuming %1%2…").arg(run.displayName(), where), cluster);
}

void RunControl::pause() {
  if (m_state == RunState::Running) m_engine.pause();
}

void RunControl::resume() {
  if (m_state == RunState::Paused) m_engine.resume();
}

void RunControl::stop() {
  if (!isRunning()) return;
  if (isFollowing()) {
    if (!m_follower.stop()) {
      setStatus(tr("Cannot stop the run: its process (%1) cannot be signalled; stop it where it was started")
                    .arg(m_follower.processId()),
                true);
      return;
    }
  } else {
    m_engine.stop();
  }
  setState(RunState::Stopping);
  setStatus(tr("Stopping: the engine finishes the iteration and writes a checkpoint…"));
}

void RunControl::onFinished(const RunOutcome& outcome) {
  m_lastOutcome = outcome;
  m_charts->flush();
  setState(RunState::Idle);
  const QString folder = QDir::toNativeSeparators(m_runFolder);
  switch (outcome.status) {
    case RunOutcome::Status::Completed:
      setStatus((m_clock.before > 0 ? tr("Run completed in %1 (%2 of it since the resume or follow began) — %3")
                                         .arg(durationText(m_clock.before + m_clock.sessionSeconds()),
                                              durationText(m_clock.sessionSeconds()), folder)
                                   : tr("Run completed in %1 — %2").arg(durationText(m_clock.sessionSeconds()), folder)) +
                (m_scalingVerdict.isEmpty() ? QString() : QStringLiteral("\n") + m_scalingVerdict));
      break;
    case RunOutcome::Status::Stopped:
      setStatus(tr("Run stopped; a checkpoint was written. ⟳ Resume run continues it on the ticked devices (in a "
                   "terminal: netsmith-cli train --resume %1)").arg(folder));
      break;
    case RunOutcome::Status::Failed:
      setStatus(tr("Run failed: %1").arg(outcome.message) +
                    (canResumeLastRun() ? tr("\n⟳ Resume continues it from its last checkpoint.") : QString()),
                true);
      break;
  }
  m_history->setActiveFolder({});
  moveAdoptedRunWhenEnded();
  emit historyChanged();
  emit finished(outcome);
}

// --- runs that go on without a console -----------------------------------------------------------

bool RunControl::followRun(const QString& folder) {
  if (isRunning()) return false;
  const QString absolute = QFileInfo(folder).absoluteFilePath();
  m_runFolder = absolute;
  clearRunView();
  setState(RunState::Starting);  // busy while the past is read
  m_clock.session.start();
  if (!m_follower.follow(absolute)) {
    m_runFolder.clear();
    setState(RunState::Idle);
    return false;
  }
  m_charts->flush();
  m_history->setActiveFolder(absolute);
  setState(RunState::Running);
  setStatus(tr("Following a run that goes on without its console (process %1): %2. Stop stops it with a checkpoint.")
                .arg(m_follower.processId())
                .arg(QDir::toNativeSeparators(absolute)));
  logLine(tr("following run folder %1 (process %2)").arg(absolute).arg(m_follower.processId()));
  return true;
}

void RunControl::followRunningRunInHistory() {
  if (isRunning()) return;
  for (const RunSummary& run : m_history->runs())
    if (run.status == QLatin1String("running") && followRun(run.folder)) return;
}

void RunControl::leaveRunToItself(bool stopFirst) {
  if (!isRunning()) return;
  if (isFollowing()) {
    if (stopFirst) m_follower.stop();
    m_follower.forget();
  } else {
    if (stopFirst) m_engine.stop();
    m_engine.detach();
  }
  setState(RunState::Idle);
}

void RunControl::forgetRun() {
  if (isFollowing()) {
    m_follower.forget();
    setState(RunState::Idle);
  }
  if (!isRunning()) {
    clearRunView();
    m_runFolder.clear();
    setStatus(tr("Ready."));
    setState(RunState::Idle);
  }
}

QString RunControl::adoptUnsavedRuns(const QString& unsavedRoot) {
  const QString root = runsRoot();
  if (QFileInfo(unsavedRoot).absoluteFilePath() == QFileInfo(root).absoluteFilePath()) return {};
  const AdoptedRuns adopted = adoptRuns(unsavedRoot, root);
  // The run training now moves when it ends: its engine writes to its folder's path.
  if (!adopted.inUse.isEmpty()) m_adoptFrom = unsavedRoot;
  followMovedRun(adopted, unsavedRoot);
  emit historyChanged();
  return adopted.summary(root);
}

void RunControl::moveAdoptedRunWhenEnded() {
  if (m_adoptFrom.isEmpty()) return;
  const AdoptedRuns adopted = adoptRuns(m_adoptFrom, runsRoot());
  if (adopted.inUse.isEmpty()) m_adoptFrom.clear();
  followMovedRun(adopted, m_adoptFrom);
}

// The run shown moved with the others: the page (its Resume, its status line) names its new place.
void RunControl::followMovedRun(const AdoptedRuns& adopted, const QString& fromRoot) {
  const QFileInfo shown(m_runFolder);
  const qsizetype at = adopted.movedFrom.indexOf(shown.fileName());
  if (at < 0 || shown.absolutePath() != QFileInfo(fromRoot).absoluteFilePath()) return;
  const QString moved = QDir(runsRoot()).filePath(adopted.moved[at]);
  emit runMoved(QDir::toNativeSeparators(m_runFolder), QDir::toNativeSeparators(moved));
  m_runFolder = moved;
}

}  // namespace netsmith::gui
