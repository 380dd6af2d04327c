#include "gui/sweep/sweep_runner.h"

#include <QDir>
#include <QFileInfo>

#include "gui/run/cli_command.h"
#include "gui/run/engine_process.h"

namespace netsmith::gui {

namespace {

QSet<QString> entriesOf(const QString& folder) {
  const QStringList names = QDir(folder).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
  return QSet<QString>(names.begin(), names.end());
}

}  // namespace

SweepRunner::SweepRunner(QObject* parent) : QObject(parent) {
  m_poll.setInterval(500);
  connect(&m_poll, &QTimer::timeout, this, &SweepRunner::poll);
}

SweepRunner::~SweepRunner() {
  if (!m_process) return;
  m_process->disconnect(this);
  // SIGTERM first, so the trainings write their checkpoints; SIGKILL if it does not end.
  m_process->terminate();
  if (!m_process->waitForFinished(5000)) {
    m_process->kill();
    m_process->waitForFinished(2000);
  }
}

qint64 SweepRunner::processId() const { return m_process ? m_process->processId() : 0; }

bool SweepRunner::start(const SweepRequest& request) {
  if (auto problem = request.problem(); problem && !m_process) {
    m_lastError = *problem;
    return false;
  }
  return launch(request);
}

bool SweepRunner::resume(const QString& studyFolder, const QStringList& devices, int devicesPerTrial) {
  SweepRequest request = m_request;
  request.resumeFolder = studyFolder;
  request.devices = devices;
  request.devicesPerTrial = devicesPerTrial;
  return launch(request);
}

bool SweepRunner::launch(const SweepRequest& request) {
  if (m_process) {
    m_lastError = tr("A sweep is running: stop it first.");
    return false;
  }
  m_request = request;
  m_rows = request.plannedRows();
  m_progress.clear();
  m_stdout.clear();
  m_stderr.clear();
  m_lastError.clear();
  m_stopRequested = false;
  m_resumable = false;
  m_log.reset();
  m_sweepFolder = request.resumeFolder;
  // What the runs folder held before: the study's folder is the new one.
  m_before = entriesOf(runsFolderOf(request.project));
  if (!m_sweepFolder.isEmpty()) m_log = std::make_unique<StudyLog>(m_sweepFolder);

  m_process = new QProcess(this);
  connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { m_stdout += m_process->readAllStandardOutput(); });
  connect(m_process, &QProcess::readyReadStandardError, this, [this] { m_stderr += m_process->readAllStandardError(); });
  connect(m_process, &QProcess::finished, this, &SweepRunner::onFinished);
  connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) onStartFailed();
  });
  // No standard input: the sweep's Stop is a signal (the CLI's sweep reads no control lines).
  m_process->setStandardInputFile(QProcess::nullDevice());
  m_process->start(engineProgram(), request.arguments(), QIODevice::ReadOnly);
  m_poll.start();
  if (!request.resumeFolder.isEmpty()) setStatus(tr("Resuming the study…"));
  else if (request.isSearch()) setStatus(tr("Starting the study…"));
  else setStatus(m_rows.size() == 1 ? tr("Starting 1 training…") : tr("Starting %1 trainings…").arg(m_rows.size()));
  emit rowsChanged();
  return true;
}

void SweepRunner::stop() {
  if (!m_process || m_stopRequested) return;
  m_stopRequested = true;
  setStatus(tr("Stopping: each training stops within one iteration and keeps a checkpoint…"));
  m_process->terminate();
  QTimer::singleShot(kStopGraceMs, m_process, [p = m_process] {
    if (p->state() != QProcess::NotRunning) p->kill();
  });
}

void SweepRunner::findStudyFolder() {
  if (m_log) return;
  // The CLI claims a new "<stamp>-sweep" folder with one mkdir (a stamp already taken waits for
  // the next second), so ours is the one that was not there before the start; study.json is
  // written right after the mkdir.
  const QString runs = runsFolderOf(m_request.project);
  for (const QString& name : QDir(runs).entryList({QStringLiteral("*-sweep")}, QDir::Dirs | QDir::NoDotAndDotDot)) {
    if (m_before.contains(name) || !QFileInfo::exists(QDir(runs).filePath(name + QStringLiteral("/study.json")))) continue;
    m_sweepFolder = QDir(runs).filePath(name);
    m_log = std::make_unique<StudyLog>(m_sweepFolder);
    return;
  }
}

void SweepRunner::followRunFolders() {
  // A trial's run folder is named in the log before it trains; it exists once the trial starts.
  for (const SweepRow& row : m_rows)
    if (!row.runFolder.isEmpty() && !m_progress.count(row.index) && QFileInfo::exists(row.runFolder))
      m_progress[row.index] = std::make_unique<RunFolderProgress>(row.runFolder);
}

void SweepRunner::poll() {
  findStudyFolder();
  bool changed = m_log && m_log->update();
  const bool resuming = m_process && !m_request.resumeFolder.isEmpty();
  QStringList axisPaths;
  for (const SweepAxis& a : m_request.axes) axisPaths << a.setting.path;
  if (m_log) m_log->applyTo(m_rows, axisPaths, resuming);
  followRunFolders();
  for (SweepRow& row : m_rows) {
    const auto p = m_progress.find(row.index);
    if (p != m_progress.end()) changed = p->second->update(row) || changed;
  }
  // The log has the last word on how a trial ended (a run stopped early reads "stopped" in its own folder).
  if (m_log) m_log->applyTo(m_rows, axisPaths, resuming);
  if (!changed) return;
  int done = 0, running = 0;
  for (const SweepRow& row : m_rows) {
    done += row.finished();
    running += row.status == QLatin1String("running");
  }
  if (!m_stopRequested) {
    const QString of = m_request.isSearch() || !m_request.resumeFolder.isEmpty() ? tr("%1 trials done, %2 running").arg(done).arg(running)
                                                                                 : tr("%1 of %2 trainings done, %3 running").arg(done).arg(m_rows.size()).arg(running);
    setStatus(m_log && !m_log->error().isEmpty() ? of + QStringLiteral(" — ") + m_log->error() : of);
  }
  emit rowsChanged();
}

void SweepRunner::onStartFailed() {
  if (!m_process) return;
  const QString why = tr("cannot start %1: %2").arg(m_process->program(), m_process->errorString());
  for (SweepRow& row : m_rows) row.status = QStringLiteral("not run");
  m_process->deleteLater();
  m_process = nullptr;
  finish(-1, why);
}

void SweepRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
  if (!m_process) return;
  m_stdout += m_process->readAllStandardOutput();
  m_stderr += m_process->readAllStandardError();
  m_process->deleteLater();
  m_process = nullptr;
  poll();  // the last lines of the run folders
  const bool crashed = status == QProcess::CrashExit;
  const QString stderrText = QString::fromUtf8(m_stderr).trimmed();
  QString message;
  std::optional<QString> summaryError;
  QStringList axisPaths;
  for (const SweepAxis& a : m_request.axes) axisPaths << a.setting.path;
  if (!crashed && exitCode != 2) summaryError = applySummary(m_stdout, m_rows, axisPaths);
  // Stopped or killed before its budgets were used: `sweep --resume` continues it.
  m_resumable = crashed || exitCode == 3;
  if (crashed || exitCode == 2 || summaryError) {
    // No summary: what the run folders said stands; the rest did not finish.
    const QString unfinished = m_stopRequested ? QStringLiteral("stopped") : QStringLiteral("failed");
    for (SweepRow& row : m_rows)
      if (!row.finished()) row.status = QFileInfo::exists(row.runFolder) ? unfinished : QStringLiteral("not run");
    if (crashed) message = tr("the sweep was ended by signal %1 (%2)").arg(exitCode).arg(signalName(exitCode));
    else if (!stderrText.isEmpty()) message = stderrText;
    else if (summaryError) message = *summaryError;
    if (crashed && m_stopRequested) message = tr("stopped (the sweep did not end in time and was killed)");
  } else if (exitCode == 1) {
    message = tr("some trainings failed");
  } else if (exitCode == 3) {
    message = tr("stopped");
  }
  finish(crashed ? -1 : exitCode, message);
}

void SweepRunner::finish(int exitCode, const QString& message) {
  m_poll.stop();
  m_lastError = exitCode == 0 ? QString() : message;
  int completed = 0, stoppedEarly = 0;
  for (const SweepRow& row : m_rows) {
    completed += row.status == QLatin1String("completed");
    stoppedEarly += row.status == QLatin1String("stopped_early");
  }
  QString status;
  if (exitCode == 0 && stoppedEarly > 0) status = tr("Ended: %1 trials completed").arg(completed);
  else if (exitCode == 0) status = tr("Completed: %1 trainings").arg(completed);
  else if (exitCode == 3) status = tr("Stopped: %1 of %2 trainings completed").arg(completed).arg(m_rows.size());
  else status = tr("%1 of %2 trainings completed: %3").arg(completed).arg(m_rows.size()).arg(message);
  if (stoppedEarly > 0) status += tr(", %1 stopped early").arg(stoppedEarly);
  if (m_resumable) status += tr(" — Resume continues the study");
  // A damaged log line is said, not skipped: the rows it would have filled may be missing.
  if (m_log && !m_log->error().isEmpty()) status += QStringLiteral(" — ") + m_log->error();
  setStatus(status);
  emit rowsChanged();
  emit finished(exitCode, message);
}

void SweepRunner::setStatus(const QString& text) {
  m_status = text;
  emit statusChanged(text);
}

}  // namespace netsmith::gui
