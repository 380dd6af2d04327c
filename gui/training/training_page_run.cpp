// TrainingPage (training_page.h): a run of the engine — started, resumed, paused, stopped — and
// its events shown in the charts, the device table, the status line and the log.
#include <QCheckBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>

#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/project/project_io.h"
#include "gui/run/cli_command.h"
#include "gui/training/cluster_panel.h"
#include "gui/training/device_table.h"
#include "gui/training/figures_text.h"
#include "gui/training/job_device_tree.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/training_charts.h"
#include "gui/training/training_page.h"
#include "gui/training/unsaved_runs.h"

namespace netsmith::gui {

bool TrainingPage::start() {
  if (isRunning()) return false;
  if (!m_planRefusal.isEmpty()) {
    setStatus(tr("Cannot start: %1").arg(m_planRefusal), true);
    return false;
  }
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
  return launchEngine(args, tr("Starting the engine…"));
}

// A new run or a resume: the previous run's charts, figures, log and outcome go.
void TrainingPage::clearRunView() {
  m_charts->clear();
  m_temperaturePlot->hide();
  m_powerPlot->hide();
  m_iterationEvents = m_epochEvents = 0;
  m_sawFinished = false;
  m_scalingVerdict.clear();
  m_lastOutcome.reset();
  m_log->clear();
  m_pastSessionsSeconds = m_sessionSeconds = m_secondsBefore = 0;
}

bool TrainingPage::launchEngine(QStringList args, const QString& status) {
  m_elapsed.start();
  m_history->setActiveFolder(m_runFolder);
  setState(State::Starting);
  const ClusterSettings cluster = m_cluster->settings();
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

QString TrainingPage::lastRunFolder() const {
  if (!m_runFolder.isEmpty()) return m_runFolder;
  const QList<RunSummary> runs = m_history->runs();
  return runs.isEmpty() ? QString() : runs.front().folder;
}

bool TrainingPage::canResumeLastRun() const {
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
bool TrainingPage::resumeRun(const QString& folder, bool onTickedDevices) {
  if (isRunning()) return false;
  const RunSummary run = summariseRun(folder);
  if (!run.hasCheckpoint) {
    setStatus(tr("Cannot resume %1: it has no checkpoint to continue from.").arg(QDir::toNativeSeparators(folder)), true);
    return false;
  }
  QStringList args{QStringLiteral("train"), QStringLiteral("--resume"), folder, QStringLiteral("--events"), QStringLiteral("-")};
  const QString before = recordedDevices(folder);
  QString where;
  if (onTickedDevices) {
    QStringList ticked;
    for (const std::string& d : m_devices->checkedDevices()) ticked << qs(d);
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
  return launchEngine(args, tr("Resuming %1%2…").arg(run.displayName(), where));
}

void TrainingPage::pause() {
  if (m_state == State::Running) m_engine.pause();
}

void TrainingPage::resume() {
  if (m_state == State::Paused) m_engine.resume();
}

void TrainingPage::stop() {
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
  setState(State::Stopping);
  setStatus(tr("Stopping: the engine finishes the iteration and writes a checkpoint…"));
}

void TrainingPage::onEvent(const EngineEvent& event) {
  if (const auto* e = std::get_if<StartedEvent>(&event)) {
    if (m_state == State::Starting) setState(State::Running);
    if (e->maxEpoch > 0) m_maxEpoch = e->maxEpoch;
    if (!e->plan.devices.empty()) showPlan(e->plan);
    m_devices->clearFigures();
    if (m_engine.cluster().enabled) m_jobDevices->showDevices(startedJobDevices(e->plan.devices, rankHosts()), true);
    setStatus(tr("Running: %1 samples, %2 parameters").arg(QLocale().toString(e->trainSamples), QLocale().toString(e->parameters)) +
              (e->deviceChange.isEmpty() ? QString() : QStringLiteral("\n") + e->deviceChange));
    m_log->appendPlainText(tr("started: run folder %1").arg(e->run));
    if (!e->deviceChange.isEmpty()) m_log->appendPlainText(e->deviceChange);
  } else if (const auto* e = std::get_if<IterationEvent>(&event)) {
    ++m_iterationEvents;
    const double elapsed = m_elapsed.elapsed() / 1000.0;
    m_charts->addIteration(*e, elapsed);
    m_devices->showFigures(e->devices);
    if (m_state == State::Stopping) return;
    setStatus(tr("Epoch %1/%2 · iteration %3/%4 · loss %5 · %6 samples/s · elapsed %7 · ETA %8")
                  .arg(e->epoch)
                  .arg(m_maxEpoch)
                  .arg(e->iteration)
                  .arg(e->iterationsPerEpoch)
                  .arg(numberText(e->loss))
                  .arg(hasValue(e->samplesPerS) ? QLocale().toString(qRound64(e->samplesPerS)) : QStringLiteral("–"))
                  .arg(durationText(elapsed), durationText(e->etaS)));
  } else if (const auto* e = std::get_if<EpochEvent>(&event)) {
    ++m_epochEvents;
    m_charts->addEpoch(*e);
    QString line = tr("epoch %1: training loss %2, validation loss %3, validation error %4, %5 s")
                       .arg(e->epoch)
                       .arg(numberText(e->trainLoss), numberText(e->validationLoss), numberText(e->validationError), numberText(e->seconds, 3));
    if (e->scaling)
      line += tr("; %1 samples/s, communication %2%, speed-up ≈ %3")
                  .arg(numberText(e->scaling->samplesPerS, 6), numberText(100 * e->scaling->communicationShare, 3),
                       numberText(e->scaling->speedupEstimate, 3));
    if (e->scaling && hasValue(e->scaling->dataShare))
      line += tr("; data %1%%2").arg(numberText(100 * e->scaling->dataShare, 3),
                                     e->scaling->dataShare > kDataBoundShare ? tr(" (waiting for data: the disk or decoding is the bottleneck)") : QString());
    m_log->appendPlainText(line);
  } else if (const auto* e = std::get_if<CheckpointEvent>(&event)) {
    m_log->appendPlainText(tr("checkpoint: %1").arg(e->path));
  } else if (const auto* e = std::get_if<ControlEvent>(&event)) {
    if (e->kind == ControlEvent::Kind::Paused) {
      if (m_state != State::Stopping) setState(State::Paused);
      setStatus(tr("Paused at epoch %1, iteration %2.").arg(e->epoch).arg(e->iteration));
      m_log->appendPlainText(tr("paused"));
      m_charts->markPause();  // the device lines break here, not across the pause
    } else if (e->kind == ControlEvent::Kind::Resumed) {
      if (m_state == State::Paused) setState(State::Running);
      m_log->appendPlainText(tr("resumed"));
    } else {
      m_log->appendPlainText(tr("resumed from checkpoint %1").arg(e->path));
      m_charts->dropAfter(e->epoch, e->iteration);
    }
  } else if (const auto* e = std::get_if<InitialParametersEvent>(&event)) {
    // Note [Initial parameters]: the load report, layer by layer.
    for (const QString& line : e->lines) m_log->appendPlainText(line);
  } else if (const auto* e = std::get_if<MessageEvent>(&event)) {
    m_log->appendHtml(QStringLiteral("<span style='color:%1'>%2: %3</span>")
                          .arg(e->isError ? QStringLiteral("#c0392b") : QStringLiteral("#b9770e"),
                               e->isError ? tr("error") : tr("warning"), e->message.toHtmlEscaped()));
  } else if (const auto* e = std::get_if<FinishedEvent>(&event)) {
    m_sawFinished = true;
    m_log->appendPlainText(tr("finished: %1").arg(e->status));
    m_scalingVerdict = e->scalingVerdict;
    if (!e->scalingVerdict.isEmpty()) m_log->appendPlainText(tr("scaling: %1").arg(e->scalingVerdict));
    for (const QString& gpu : e->gpuSummaries) m_log->appendPlainText(gpu);
  }
}

void TrainingPage::onLog(const QString& line, LogKind kind) {
  if (kind == LogKind::Notice) m_log->appendHtml(QStringLiteral("<span style='color:#666'>%1</span>").arg(line.toHtmlEscaped()));
  else m_log->appendPlainText(line);
}

void TrainingPage::onFinished(const RunOutcome& outcome) {
  m_lastOutcome = outcome;
  m_charts->flush();
  setState(State::Idle);
  const QString folder = QDir::toNativeSeparators(m_runFolder);
  switch (outcome.status) {
    case RunOutcome::Status::Completed:
      setStatus((m_secondsBefore > 0 ? tr("Run completed in %1 (%2 of it since the resume or follow began) — %3")
                                         .arg(durationText(m_secondsBefore + m_elapsed.elapsed() / 1000.0),
                                              durationText(m_elapsed.elapsed() / 1000.0), folder)
                                   : tr("Run completed in %1 — %2").arg(durationText(m_elapsed.elapsed() / 1000.0), folder)) +
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
  refreshHistory();
  m_planDebounce.start();
}

// --- the run's past ----------------------------------------------------------------------------

void TrainingPage::replayEvent(const EngineEvent& event) {
  if (const auto* e = std::get_if<StartedEvent>(&event)) {
    if (e->maxEpoch > 0) m_maxEpoch = e->maxEpoch;
    m_pastSessionsSeconds += m_sessionSeconds;
    m_sessionSeconds = 0;
  } else if (const auto* e = std::get_if<IterationEvent>(&event)) {
    if (hasValue(e->elapsedS)) m_sessionSeconds = e->elapsedS;
    // The loss only: the device figures were measured on the clock of a session that is gone.
    IterationEvent loss = *e;
    loss.devices.clear();
    m_charts->addIteration(loss, 0);
  } else if (const auto* e = std::get_if<EpochEvent>(&event)) {
    m_charts->addEpoch(*e);
  } else if (const auto* e = std::get_if<ControlEvent>(&event); e && e->kind == ControlEvent::Kind::ResumedFromCheckpoint) {
    m_charts->dropAfter(e->epoch, e->iteration);
  }
  m_secondsBefore = m_pastSessionsSeconds + m_sessionSeconds;
}

void TrainingPage::replayRunEvents(const QString& folder) {
  QFile f(QDir(folder).filePath(QStringLiteral("events.jsonl")));
  if (!f.open(QIODevice::ReadOnly)) return;
  EventStreamReader reader;
  connect(&reader, &EventStreamReader::eventReceived, this, &TrainingPage::replayEvent);
  reader.feed(f.readAll());
  m_charts->flush();
}

// --- runs that go on without a console -----------------------------------------------------------

bool TrainingPage::followRun(const QString& folder) {
  if (isRunning()) return false;
  const QString absolute = QFileInfo(folder).absoluteFilePath();
  m_runFolder = absolute;
  clearRunView();
  setState(State::Starting);  // busy while the past is read
  m_elapsed.start();
  if (!m_follower.follow(absolute)) {
    m_runFolder.clear();
    setState(State::Idle);
    return false;
  }
  m_charts->flush();
  m_history->setActiveFolder(absolute);
  setState(State::Running);
  setStatus(tr("Following a run that goes on without its console (process %1): %2. Stop stops it with a checkpoint.")
                .arg(m_follower.processId())
                .arg(QDir::toNativeSeparators(absolute)));
  m_log->appendPlainText(tr("following run folder %1 (process %2)").arg(absolute).arg(m_follower.processId()));
  return true;
}

void TrainingPage::followRunningRunInHistory() {
  if (isRunning()) return;
  for (const RunSummary& run : m_history->runs())
    if (run.status == QLatin1String("running") && followRun(run.folder)) return;
}

void TrainingPage::leaveRunToItself(bool stopFirst) {
  if (!isRunning()) return;
  if (isFollowing()) {
    if (stopFirst) m_follower.stop();
    m_follower.forget();
  } else {
    if (stopFirst) m_engine.stop();
    m_engine.detach();
  }
  setState(State::Idle);
}

QString TrainingPage::adoptUnsavedRuns(const QString& unsavedRoot) {
  const QString root = runsRoot();
  if (QFileInfo(unsavedRoot).absoluteFilePath() == QFileInfo(root).absoluteFilePath()) return {};
  const AdoptedRuns adopted = adoptRuns(unsavedRoot, root);
  // The run training now moves when it ends: its engine writes to its folder's path.
  if (!adopted.inUse.isEmpty()) m_adoptFrom = unsavedRoot;
  followMovedRun(adopted, unsavedRoot);
  refreshHistory();
  return adopted.summary(root);
}

void TrainingPage::moveAdoptedRunWhenEnded() {
  if (m_adoptFrom.isEmpty()) return;
  const AdoptedRuns adopted = adoptRuns(m_adoptFrom, runsRoot());
  if (adopted.inUse.isEmpty()) m_adoptFrom.clear();
  followMovedRun(adopted, m_adoptFrom);
}

// The run shown moved with the others: the page (its Resume, its status line) names its new place.
void TrainingPage::followMovedRun(const AdoptedRuns& adopted, const QString& fromRoot) {
  const QFileInfo shown(m_runFolder);
  const qsizetype at = adopted.movedFrom.indexOf(shown.fileName());
  if (at < 0 || shown.absolutePath() != QFileInfo(fromRoot).absoluteFilePath()) return;
  const QString moved = QDir(runsRoot()).filePath(adopted.moved[at]);
  QString status = statusText();
  status.replace(QDir::toNativeSeparators(m_runFolder), QDir::toNativeSeparators(moved));
  setStatus(status, m_status->styleSheet().contains(QLatin1String("c0392b")));
  m_runFolder = moved;
}

}  // namespace netsmith::gui
