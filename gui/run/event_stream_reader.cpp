#include "gui/run/event_stream_reader.h"

namespace netsmith::gui {

void EventStreamReader::feed(const QByteArray& chunk) {
  for (const QByteArray& line : m_splitter.feed(chunk)) handleLine(line);
  if (const int dropped = m_splitter.takeDroppedLines())
    emit logLine(tr("%n engine output line(s) longer than %1 MiB ignored", nullptr, dropped)
                     .arg(LineSplitter::kMaxLineBytes / (1024 * 1024)),
                 LogKind::Notice);
}

void EventStreamReader::finish() {
  const QByteArray rest = m_splitter.takeRemainder();
  if (rest.trimmed().isEmpty()) return;
  // A complete JSON object without its newline is still a whole event (a writer that did not end
  // its last line); anything else is a line the engine was cut off in the middle of.
  if (auto event = parseEngineEvent(rest)) {
    ++m_events;
    emit eventReceived(*event);
    return;
  }
  emit logLine(tr("engine output ended in the middle of a line: %1").arg(QString::fromUtf8(rest.left(200))),
               LogKind::Notice);
}

void EventStreamReader::handleLine(const QByteArray& line) {
  if (line.trimmed().isEmpty()) return;
  EngineLine read = readEngineLine(line);
  if (read.event) {
    ++m_events;
    emit eventReceived(*read.event);
    return;
  }
  // An event whose fields do not match the protocol (a broken or mismatched engine): say which
  // field, rather than show figures read as something else (Note [Protocol reading rules]).
  if (read.kind == protocol::EventLine::Kind::Damaged) {
    emit logLine(tr("engine event not understood: %1").arg(read.error), LogKind::Notice);
    return;
  }
  // Not an event: something the engine (or a library inside it) printed. Keep it in the log.
  emit logLine(QString::fromUtf8(line.left(2000)), LogKind::Output);
}

}  // namespace netsmith::gui
