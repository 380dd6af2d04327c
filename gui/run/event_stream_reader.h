// EventStreamReader: bytes of the engine's standard output in, value-type events and log lines
// out. Knows nothing of processes, so tests feed it byte by byte.
#pragma once

#include <QObject>

#include "gui/run/engine_event.h"
#include "gui/run/line_splitter.h"

namespace netsmith::gui {

enum class LogKind {
  Output,  // a line the engine wrote that is not an event (or its standard error)
  Notice,  // something the GUI noticed: a line that is not an event, a cut line, the exit status
};

class EventStreamReader : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  void feed(const QByteArray& chunk);
  // The stream ended (the process exited or crashed): a partial last line is reported as cut.
  void finish();
  int eventCount() const { return m_events; }

 signals:
  void eventReceived(const netsmith::gui::EngineEvent& event);
  void logLine(const QString& line, netsmith::gui::LogKind kind);

 private:
  void handleLine(const QByteArray& line);

  LineSplitter m_splitter;
  int m_events = 0;
};

}  // namespace netsmith::gui
