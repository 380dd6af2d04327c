#include "gui/sweep/sweep_runner.h"

#include <QDir>
#include <QRegularExpression>

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
  if (m_process) {
    m_lastError = tr("A sweep is running: stop it first.");
    return false;
  }
  if (auto problem = request.problem()) {
    m_lastError = *problem;
    return false;
  }
  m_request = request;
  m_rows = request.plannedRows();
  m_progress.clear();
  m_stamp.clear();
  m_sweepFolder.clear();
  m_stdout.clear();
  m_stderr.clear();
  m_lastError.clear();
  m_stopRequested = false;
  // What the runs folders held before: the sweep's folders are the new ones.
  m_before.clear();
  for (const SweepRow& row : m_rows) {
    const QString runs = runsFolderOf(row.project);
    if (!m_before.count(runs)) m_before[runs] = entriesOf(runs);
  }

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
  setStatus(m_rows.size() == 1 ? tr("Starting 1 training…") : tr("Starting %1 trainings…").arg(m_rows.size()));
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

void SweepRunner::findRunFolders() {
  // Row k's folder is a new "<stamp>-sweep<k>-<label>" in its project's runs folder. The stamp has
  // whole seconds, so a sweep started in the second another one started reuses its stamp (and
  // its "<stamp>-sweep" folder): the folders are told apart from what was there before the start.
  static const QRegularExpression runName(QStringLiteral("^(\\d{8}-\\d{6})-sweep(\\d+)-"));
  std::map<QString, QStringList> listed;  // each runs folder read once per poll
  for (const SweepRow& row : m_rows) {
    if (m_progress.count(row.index)) continue;
    const QString runs = runsFolderOf(row.project);
    if (!listed.count(runs)) listed[runs] = QDir(runs).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& name : listed[runs]) {
      const auto match = runName.match(name);
      if (!match.hasMatch() || match.captured(2).toInt() != row.index || m_before[runs].contains(name)) continue;
      if (!m_stamp.isEmpty() && match.captured(1) != m_stamp) continue;
      m_stamp = match.captured(1);
      m_sweepFolder = QDir(runsFolderOf(m_request.project)).filePath(m_stamp + QStringLiteral("-sweep"));
      m_progress[row.index] = std::make_unique<RunFolderProgress>(QDir(runs).filePath(name));
      break;
    }
  }
}

void SweepRunner::poll() {
  findRunFolders();
  bool changed = false;
  for (SweepRow& row : m_rows) {
    const auto p = m_progress.find(row.index);
    if (p != m_progress.end()) changed = p->second->update(row) || changed;
  }
  if (!changed) return;
  int done = 0, running = 0;
  for (const SweepRow& row : m_rows) {
    done += row.finished();
    running += row.status == QLatin1String("running");
  }
  if (!m_stopRequested)
    setStatus(tr("%1 of %2 trainings done, %3 running").arg(done).arg(m_rows.size()).arg(running));
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
  if (!crashed && exitCode != 2) summaryError = applySummary(m_stdout, m_rows);
  if (crashed || exitCode == 2 || summaryError) {
    // No summary: what the run folders said stands; the rest did not finish.
    const QString unfinished = m_stopRequested ? QStringLiteral("stopped") : QStringLiteral("failed");
    for (SweepRow& row : m_rows)
      if (!row.finished()) row.status = row.runFolder.isEmpty() ? QStringLiteral("not run") : unfinished;
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
  int completed = 0;
  for (const SweepRow& row : m_rows) completed += row.status == QLatin1String("completed");
  if (exitCode == 0) setStatus(tr("Completed: %1 trainings").arg(completed));
  else if (exitCode == 3) setStatus(tr("Stopped: %1 of %2 trainings completed").arg(completed).arg(m_rows.size()));
  else setStatus(tr("%1 of %2 trainings completed: %3").arg(completed).arg(m_rows.size()).arg(message));
  emit rowsChanged();
  emit finished(exitCode, message);
}

void SweepRunner::setStatus(const QString& text) {
  m_status = text;
  emit statusChanged(text);
}

}  // namespace netsmith::gui
