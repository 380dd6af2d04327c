// RunFollower: a run that another process trains — one a console started before it was closed or
// killed (Note [The run outlives its console]), or one started in a terminal — followed through its
// run folder: events.jsonl is read as it grows, with the same reader as the engine's standard
// output, until the process lets go of the folder's run.lock.
//
// What is in the file when following starts arrives as pastEvent() (the page draws the curve so
// far from it); what is appended later as eventReceived(). Exactly one finished(RunOutcome) ends
// it: the status of the run's last `finished` event, or a failure when the process ended without
// one (killed). stop() asks the process to stop as Ctrl+C would (SIGINT): it finishes the
// iteration and writes a checkpoint. A followed run cannot be paused: its standard input is not
// ours.
#pragma once

#include <QFile>
#include <QObject>
#include <QTimer>
#include <optional>

#include "gui/run/engine_process.h"
#include "gui/run/event_stream_reader.h"

namespace netsmith::gui {

class RunFollower : public QObject {
  Q_OBJECT
 public:
  explicit RunFollower(QObject* parent = nullptr);

  // Starts following `runFolder`; false (nothing emitted) when no process holds it now.
  bool follow(const QString& runFolder);
  bool isFollowing() const { return m_timer.isActive(); }
  QString folder() const { return m_folder; }
  // The process that trains it (from run.lock), 0 when unknown.
  qint64 processId() const { return m_pid; }
  // SIGINT to the process: false when it is not known or cannot be signalled.
  bool stop();
  // Stops following without an outcome (the page goes, or another project is opened).
  void forget();

  static constexpr int kPollMs = 250;

 signals:
  void pastEvent(const netsmith::gui::EngineEvent& event);
  void eventReceived(const netsmith::gui::EngineEvent& event);
  void logLine(const QString& line, netsmith::gui::LogKind kind);
  void finished(const netsmith::gui::RunOutcome& outcome);

 private:
  void poll();
  void readNew();
  void onEvent(const EngineEvent& event);

  QString m_folder;
  QFile m_events;
  QTimer m_timer;
  EventStreamReader m_reader;
  qint64 m_pid = 0;
  bool m_catchingUp = false;
  std::optional<FinishedEvent> m_finished;  // of the segment being followed
  QString m_lastError;
};

}  // namespace netsmith::gui
