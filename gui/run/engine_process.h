// EngineProcess: one `netsmith-cli` child (DESIGN.md §7). Its standard output is read as the
// events stream, its standard error as log lines; pause/resume/stop are lines on its standard
// input. The GUI thread never waits for it: everything arrives as signals.
//
// With a ClusterSettings that is enabled, the child is `mpirun ... netsmith-cli ...`
// (gui/run/cluster_launch.h): the same stream comes through mpirun from rank 0.
//
// However the child ends — a `finished` event, a non-zero exit, a crash or a kill — exactly one
// finished(RunOutcome) is emitted, and a crash is reported with its signal.
#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>

#include "gui/run/cluster_launch.h"
#include "gui/run/event_stream_reader.h"

namespace netsmith::gui {

struct RunOutcome {
  enum class Status { Completed, Stopped, Failed };
  Status status = Status::Failed;
  bool crashed = false;  // ended by a signal
  int exitCode = 0;      // the exit status, or the signal number when crashed
  QString message;       // why it failed, for people: "killed by signal 9 (SIGKILL)", the engine's message

  QString statusText() const;  // "completed", "stopped", "failed"
  // How a run that wrote its `finished` event ended; `lastError` (the last error event or
  // standard error line) says why a failure without a message failed.
  static RunOutcome of(const FinishedEvent& finished, const QString& lastError);
};

// "SIGKILL" for 9, etc.; "signal N" for others.
QString signalName(int signal);

class EngineProcess : public QObject {
  Q_OBJECT
 public:
  explicit EngineProcess(QObject* parent = nullptr);
  // A child still running is killed, unless detach() let it go: a page that goes away (a test,
  // a window closed with "Stop") does not leave a training behind that nobody asked for.
  ~EngineProcess() override;

  void setProgram(const QString& program) { m_program = program; }
  QString program() const { return m_program; }
  // Launch through mpirun (when enabled) from the next start() on.
  void setCluster(const ClusterSettings& cluster) { m_cluster = cluster; }
  ClusterSettings cluster() const { return m_cluster; }
  // The command the last start() ran (or could not run), for tests and the log.
  EngineCommand lastCommand() const { return m_command; }
  // Starts `program() arguments` (wrapped in mpirun under a cluster); emits finished() with a
  // failure if it cannot start (mpirun missing included). Refused while running.
  bool start(const QStringList& arguments, const QString& workingDirectory = {});
  bool isRunning() const;
  qint64 processId() const;

  void pause() { sendControl("pause"); }
  void resume() { sendControl("resume"); }
  // Asks the engine to stop within one iteration and write a checkpoint.
  void stop() { sendControl("stop"); }
  // Ends the child at once (SIGKILL). mpirun gets SIGTERM first, which it passes on to every
  // rank (a SIGKILLed mpirun would leave its ranks behind), and SIGKILL 5 s later.
  void kill();
  // Lets the child train on without this object (Note [The run outlives its console]): nothing
  // more is read from it or emitted, and it is not killed when this object goes. Its events go
  // on into its run folder's events.jsonl, where a RunFollower can pick them up.
  void detach();

 signals:
  void eventReceived(const netsmith::gui::EngineEvent& event);
  void logLine(const QString& line, netsmith::gui::LogKind kind);
  void finished(const netsmith::gui::RunOutcome& outcome);

 private:
  void sendControl(const char* line);
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void onErrorOccurred(QProcess::ProcessError error);
  void onEvent(const EngineEvent& event);
  void drainStderr(bool final);
  void failToStart(const QString& message);

  QString m_program;
  ClusterSettings m_cluster;
  EngineCommand m_command;
  QProcess* m_process = nullptr;
  EventStreamReader m_reader;
  LineSplitter m_stderr;
  std::optional<FinishedEvent> m_finishedEvent;
  QString m_lastError;  // the last `error` event or stderr line, for a failure message
  bool m_reported = false;
};

}  // namespace netsmith::gui

Q_DECLARE_METATYPE(netsmith::gui::RunOutcome)
