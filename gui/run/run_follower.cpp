#include "gui/run/run_follower.h"

#include <QDir>
#include <csignal>

#include "engine/train/run_folder.h"

namespace netsmith::gui {

RunFollower::RunFollower(QObject* parent) : QObject(parent) {
  m_timer.setInterval(kPollMs);
  connect(&m_timer, &QTimer::timeout, this, &RunFollower::poll);
  connect(&m_reader, &EventStreamReader::eventReceived, this, &RunFollower::onEvent);
  connect(&m_reader, &EventStreamReader::logLine, this, &RunFollower::logLine);
}

bool RunFollower::follow(const QString& runFolder) {
  forget();
  const std::string dir = QDir(runFolder).absolutePath().toStdString();
  m_pid = runFolderHolder(dir);
  if (!runFolderInUse(dir)) return false;
  m_folder = QDir(runFolder).absolutePath();
  m_events.setFileName(QDir(m_folder).filePath(QStringLiteral("events.jsonl")));
  m_finished.reset();
  m_lastError.clear();
  // Everything written so far is the run's past; a partial last line waits for its end.
  m_catchingUp = true;
  readNew();
  m_catchingUp = false;
  m_timer.start();
  return true;
}

bool RunFollower::stop() {
  if (!isFollowing() || m_pid <= 0) return false;
  return ::kill(static_cast<pid_t>(m_pid), SIGINT) == 0;
}

void RunFollower::forget() {
  m_timer.stop();
  m_events.close();
  m_reader.finish();
  m_folder.clear();
  m_pid = 0;
}

void RunFollower::readNew() {
  if (!m_events.isOpen() && !m_events.open(QIODevice::ReadOnly)) return;  // not written yet
  const QByteArray chunk = m_events.readAll();
  if (!chunk.isEmpty()) m_reader.feed(chunk);
}

void RunFollower::onEvent(const EngineEvent& event) {
  // A resume writes a new `started`: an earlier segment's `finished` is not this one's end.
  if (std::holds_alternative<StartedEvent>(event)) m_finished.reset();
  if (const auto* f = std::get_if<FinishedEvent>(&event)) m_finished = *f;
  if (const auto* m = std::get_if<MessageEvent>(&event); m && m->isError) m_lastError = m->message;
  if (m_catchingUp) emit pastEvent(event);
  else emit eventReceived(event);
}

void RunFollower::poll() {
  // Whether the process still holds the folder is asked before reading: what it wrote before
  // letting go is then all read below.
  const bool running = runFolderInUse(m_folder.toStdString());
  readNew();
  if (running) return;
  m_timer.stop();
  m_reader.finish();
  RunOutcome outcome;
  if (m_finished) {
    outcome = RunOutcome::of(*m_finished, m_lastError);
  } else {
    outcome.status = RunOutcome::Status::Failed;
    outcome.message = tr("the engine (process %1) ended without finishing the run: it was killed or crashed").arg(m_pid);
  }
  m_events.close();
  emit finished(outcome);
}

}  // namespace netsmith::gui
