// Runs netsmith-cli as a child process (as the GUI does) and collects its events stream.
#pragma once

#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/event_filter.h"

namespace netsmith::test {

using Json = nlohmann::json;

struct CliRun {
  int exitCode = -1;
  bool crashed = false;
  std::vector<Json> events;
  QByteArray stdoutText;
  QByteArray stderrText;

  std::vector<Json> ofKind(const std::string& kind) const { return eventsOfKind(events, kind); }
  Json last(const std::string& kind) const { return lastEventOfKind(events, kind); }
  // The finished event's parameters_sha256 ("" when the run did not finish).
  std::string parametersSha() const { return last("finished").value("parameters_sha256", ""); }
};

inline QString cliPath() { return QStringLiteral(NETSMITH_CLI); }
inline QString sourcePath(const QString& rel) { return QStringLiteral(NETSMITH_SOURCE_DIR) + "/" + rel; }

// Runs `netsmith-cli args...`. When `onEvent` is given, the command is started with
// `--events -` semantics expected from the caller and each event line is passed to it as it
// arrives (with the process, so the callback can write control lines or kill it).
// runProcess runs any program the same way (mpirun with netsmith-cli, for instance).
// `environment`: NAME=VALUE entries added to the test's own environment for the child only.
inline CliRun runProcess(const QString& program, const QStringList& args, int timeoutMs = 600000,
                         const std::function<void(const Json&, QProcess&)>& onEvent = {},
                         const QStringList& environment = {}) {
  CliRun run;
  QProcess p;
  p.setProgram(program);
  p.setArguments(args);
  if (!environment.isEmpty()) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& v : environment) env.insert(v.section('=', 0, 0), v.section('=', 1));
    p.setProcessEnvironment(env);
  }
  p.start();
  if (!p.waitForStarted(10000)) return run;
  QByteArray pending;
  QElapsedTimer timer;
  timer.start();
  auto drain = [&] {
    pending += p.readAllStandardOutput();
    int nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const QByteArray line = pending.left(nl);
      pending.remove(0, nl + 1);
      run.stdoutText += line + "\n";
      if (line.startsWith('{')) {
        Json e = Json::parse(line.toStdString(), nullptr, false);
        if (!e.is_discarded()) {
          run.events.push_back(e);
          if (onEvent) onEvent(e, p);
        }
      }
    }
  };
  while (p.state() != QProcess::NotRunning && timer.elapsed() < timeoutMs) {
    p.waitForReadyRead(100);
    drain();
  }
  if (p.state() != QProcess::NotRunning) {
    p.kill();
    p.waitForFinished();
  }
  drain();
  run.stderrText = p.readAllStandardError();
  run.crashed = p.exitStatus() == QProcess::CrashExit;
  run.exitCode = p.exitCode();
  return run;
}

inline CliRun runCli(const QStringList& args, int timeoutMs = 600000,
                     const std::function<void(const Json&, QProcess&)>& onEvent = {},
                     const QStringList& environment = {}) {
  return runProcess(cliPath(), args, timeoutMs, onEvent, environment);
}

}  // namespace netsmith::test
