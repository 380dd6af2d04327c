#include "gui/run/engine_process.h"

#include <QTimer>
#include <csignal>

#include <unistd.h>

namespace netsmith::gui {

QString RunOutcome::statusText() const {
  switch (status) {
    case Status::Completed: return QStringLiteral("completed");
    case Status::Stopped: return QStringLiteral("stopped");
    case Status::Failed: break;
  }
  return QStringLiteral("failed");
}

RunOutcome RunOutcome::of(const FinishedEvent& finished, const QString& lastError) {
  RunOutcome outcome;
  const QString& s = finished.status;
  outcome.status = s == QLatin1String("completed") ? Status::Completed
                   : s == QLatin1String("stopped") ? Status::Stopped
                                                   : Status::Failed;
  if (outcome.status == Status::Failed) outcome.message = finished.message.isEmpty() ? lastError : finished.message;
  return outcome;
}

QString signalName(int signal) {
  switch (signal) {
    case SIGKILL: return QStringLiteral("SIGKILL");
    case SIGTERM: return QStringLiteral("SIGTERM");
    case SIGINT: return QStringLiteral("SIGINT");
    case SIGSEGV: return QStringLiteral("SIGSEGV");
    case SIGABRT: return QStringLiteral("SIGABRT");
    case SIGBUS: return QStringLiteral("SIGBUS");
    case SIGFPE: return QStringLiteral("SIGFPE");
    case SIGILL: return QStringLiteral("SIGILL");
    case SIGPIPE: return QStringLiteral("SIGPIPE");
    case SIGHUP: return QStringLiteral("SIGHUP");
    default: return QStringLiteral("signal %1").arg(signal);
  }
}

EngineProcess::EngineProcess(QObject* parent) : QObject(parent) {
  qRegisterMetaType<EngineEvent>();
  qRegisterMetaType<RunOutcome>();
  connect(&m_reader, &EventStreamReader::eventReceived, this, &EngineProcess::onEvent);
  connect(&m_reader, &EventStreamReader::logLine, this, &EngineProcess::logLine);
}

EngineProcess::~EngineProcess() {
  if (!m_process) return;
  m_process->disconnect(this);
  if (m_process->state() != QProcess::NotRunning) {
    if (m_command.viaMpirun) {
      m_process->terminate();
      if (m_process->waitForFinished(5000)) return;
    }
    m_process->kill();
    m_process->waitForFinished(2000);
  }
}

bool EngineProcess::start(const QStringList& arguments, const QString& workingDirectory) {
  if (isRunning()) return false;
  if (m_process) m_process->deleteLater();
  m_process = new QProcess(this);
  m_finishedEvent.reset();
  m_lastError.clear();
  m_reported = false;
  m_reader.finish();  // drop anything left from a previous child
  m_stderr.takeRemainder();
  m_command = buildEngineCommand(m_program, arguments, m_cluster, currentLaunchHost());
  if (!m_command.error.isEmpty()) {
    failToStart(m_command.error);
    return true;
  }
  m_process->setProgram(m_command.program);
  m_process->setArguments(m_command.arguments);
  if (!m_command.environment.isEmpty()) m_process->setProcessEnvironment(m_command.processEnvironment());
  if (!workingDirectory.isEmpty()) m_process->setWorkingDirectory(workingDirectory);
  // Note [The run outlives its console]: a session of its own, so that the terminal the console
  // was started from (its Ctrl+C, its hang-up when closed) reaches the console, not the run.
  m_process->setChildProcessModifier([] { ::setsid(); });
  connect(m_process, &QProcess::readyReadStandardOutput, this,
          [this] { m_reader.feed(m_process->readAllStandardOutput()); });
  connect(m_process, &QProcess::readyReadStandardError, this, [this] { drainStderr(false); });
  connect(m_process, &QProcess::finished, this, &EngineProcess::onFinished);
  connect(m_process, &QProcess::errorOccurred, this, &EngineProcess::onErrorOccurred);
  emit logLine(tr("$ %1").arg(m_command.commandLine()), LogKind::Notice);
  m_process->start(QIODevice::ReadWrite);
  return true;
}

bool EngineProcess::isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }

qint64 EngineProcess::processId() const { return m_process ? m_process->processId() : 0; }

void EngineProcess::kill() {
  if (!isRunning()) return;
  if (!m_command.viaMpirun) return m_process->kill();
  m_process->terminate();
  QTimer::singleShot(5000, m_process, [p = m_process] {
    if (p->state() != QProcess::NotRunning) p->kill();
  });
}

void EngineProcess::detach() {
  if (!isRunning()) return;
  m_process->disconnect(this);
  // The QProcess would kill its child when destroyed: it is left to the end of this process,
  // whose exit closes the pipes (the engine's writes to them then fail, and it trains on). Until
  // then what the engine writes is read and dropped, so that a full pipe never blocks it.
  QProcess* p = m_process;
  connect(p, &QProcess::readyReadStandardOutput, p, [p] { p->readAllStandardOutput(); });
  connect(p, &QProcess::readyReadStandardError, p, [p] { p->readAllStandardError(); });
  connect(p, &QProcess::finished, p, &QObject::deleteLater);
  p->closeWriteChannel();
  m_process->setParent(nullptr);
  m_process = nullptr;
  m_reported = true;
}

// Reported from the event loop, as a start that fails in QProcess is: the caller sees start()
// return before the outcome arrives.
void EngineProcess::failToStart(const QString& message) {
  QTimer::singleShot(0, this, [this, message] {
    if (m_reported) return;
    m_reported = true;
    RunOutcome outcome;
    outcome.status = RunOutcome::Status::Failed;
    outcome.exitCode = -1;
    outcome.message = message;
    emit logLine(message, LogKind::Notice);
    emit finished(outcome);
  });
}

void EngineProcess::sendControl(const char* line) {
  if (!isRunning()) return;
  m_process->write(QByteArray(line) + '\n');
  emit logLine(tr("> %1").arg(QString::fromLatin1(line)), LogKind::Notice);
}

void EngineProcess::onEvent(const EngineEvent& event) {
  if (const auto* f = std::get_if<FinishedEvent>(&event)) m_finishedEvent = *f;
  if (const auto* m = std::get_if<MessageEvent>(&event); m && m->isError) m_lastError = m->message;
  emit eventReceived(event);
}

void EngineProcess::drainStderr(bool final) {
  QList<QByteArray> lines = m_stderr.feed(m_process->readAllStandardError());
  if (final) {
    const QByteArray rest = m_stderr.takeRemainder();
    if (!rest.isEmpty()) lines.push_back(rest);
  }
  for (const QByteArray& line : lines) {
    if (line.trimmed().isEmpty()) continue;
    m_lastError = QString::fromUtf8(line);
    emit logLine(m_lastError, LogKind::Output);
  }
}

void EngineProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
  m_reader.feed(m_process->readAllStandardOutput());
  m_reader.finish();
  drainStderr(true);
  if (m_reported) return;
  m_reported = true;

  RunOutcome outcome;
  outcome.crashed = status == QProcess::CrashExit;
  // On Unix, QProcess gives the signal number as the exit code of a crashed child.
  outcome.exitCode = exitCode;
  if (outcome.crashed) {
    outcome.status = RunOutcome::Status::Failed;
    outcome.message = tr("the engine was killed by signal %1 (%2)").arg(exitCode).arg(signalName(exitCode));
  } else if (m_finishedEvent) {
    outcome = RunOutcome::of(*m_finishedEvent, m_lastError);
  } else if (exitCode == 0) {
    // Exited cleanly without saying how the run ended: treat as failed, the run is incomplete.
    outcome.status = RunOutcome::Status::Failed;
    outcome.message = tr("the engine exited without a 'finished' event");
  } else {
    outcome.status = RunOutcome::Status::Failed;
    outcome.message = m_lastError.isEmpty() ? tr("the engine exited with code %1").arg(exitCode)
                                            : tr("the engine exited with code %1: %2").arg(exitCode).arg(m_lastError);
  }
  emit logLine(tr("engine %1 (%2)")
                   .arg(outcome.statusText(),
                        outcome.crashed ? tr("signal %1, %2").arg(exitCode).arg(signalName(exitCode))
                                        : tr("exit code %1").arg(exitCode)),
               LogKind::Notice);
  emit finished(outcome);
}

void EngineProcess::onErrorOccurred(QProcess::ProcessError error) {
  if (error != QProcess::FailedToStart || m_reported) return;
  m_reported = true;
  RunOutcome outcome;
  outcome.status = RunOutcome::Status::Failed;
  outcome.exitCode = -1;
  outcome.message = tr("cannot start the engine '%1': %2").arg(m_command.program, m_process->errorString());
  emit logLine(outcome.message, LogKind::Notice);
  emit finished(outcome);
}

}  // namespace netsmith::gui
