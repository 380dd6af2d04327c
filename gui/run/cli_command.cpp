#include "gui/run/cli_command.h"
#include "gui/run/engine_text.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>

namespace netsmith::gui {

QString engineProgram() {
  const QString fromEnv = qEnvironmentVariable("NETSMITH_CLI");
  if (!fromEnv.isEmpty()) return fromEnv;
  const QString besideUs = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("netsmith-cli"));
  if (QFileInfo(besideUs).isExecutable()) return besideUs;
  const QString onPath = QStandardPaths::findExecutable(QStringLiteral("netsmith-cli"));
  return onPath.isEmpty() ? QStringLiteral("netsmith-cli") : onPath;
}

QString CliResult::errorText() const {
  if (!standardError.trimmed().isEmpty()) return withoutEngineName(standardError.trimmed());
  if (!started) return QCoreApplication::translate("netsmith", "cannot start %1").arg(engineProgram());
  return QCoreApplication::translate("netsmith", "%1 exited with code %2").arg(engineProgram()).arg(exitCode);
}

QProcess* runCliCommand(QObject* owner, const QStringList& arguments, std::function<void(const CliResult&)> done,
                        int timeoutMs) {
  auto* process = new QProcess(owner);
  auto finish = [process, done](CliResult r) {
    if (process->property("netsmithReported").toBool()) return;
    process->setProperty("netsmithReported", true);
    process->deleteLater();
    done(r);
  };
  QObject::connect(process, &QProcess::finished, process, [process, finish](int code, QProcess::ExitStatus status) {
    CliResult r;
    r.started = true;
    r.exitCode = status == QProcess::CrashExit ? -1 : code;
    r.standardOutput = process->readAllStandardOutput();
    r.standardError = QString::fromUtf8(process->readAllStandardError());
    finish(r);
  });
  QObject::connect(process, &QProcess::errorOccurred, process, [process, finish](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    CliResult r;
    r.standardError = QCoreApplication::translate("netsmith", "cannot start %1: %2")
                          .arg(process->program(), process->errorString());
    finish(r);
  });
  // A command that hangs is ended; its finished signal then reports it.
  QTimer::singleShot(timeoutMs, process, [process] {
    if (process->state() != QProcess::NotRunning) process->kill();
  });
  process->start(engineProgram(), arguments, QIODevice::ReadOnly);
  return process;
}

void cancelCliCommand(QProcess* process) {
  if (!process) return;
  // Killing a QProcess in its destructor emits finished(); nobody must hear it.
  process->disconnect();
  if (process->state() != QProcess::NotRunning) {
    process->kill();
    process->waitForFinished(1000);
  }
  delete process;
}

}  // namespace netsmith::gui
