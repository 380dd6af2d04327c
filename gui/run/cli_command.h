// Where netsmith-cli is, and one-shot engine commands (`devices --json`, `train --dry-run --json`)
// run without blocking the GUI thread.
#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <functional>

namespace netsmith::gui {

// $NETSMITH_CLI when set; else netsmith-cli next to this executable; else the one on PATH;
// else the bare name (starting it then fails with a clear message).
QString engineProgram();

struct CliResult {
  bool started = false;  // false: the program could not be started
  int exitCode = -1;
  QByteArray standardOutput;
  QString standardError;
  // Standard error without the program's name (withoutEngineName), or why it did not start/finish.
  QString errorText() const;
};

// Runs `engineProgram() arguments` and calls `done` on the GUI thread when it ends. The returned
// process belongs to `owner`; deleting it cancels the command (done is not called then).
QProcess* runCliCommand(QObject* owner, const QStringList& arguments, std::function<void(const CliResult&)> done,
                        int timeoutMs = 30000);

// Ends a command started by runCliCommand without calling its `done` (null is fine).
void cancelCliCommand(QProcess* process);

}  // namespace netsmith::gui
