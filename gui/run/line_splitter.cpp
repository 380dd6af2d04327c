#include "gui/run/line_splitter.h"

namespace netsmith::gui {
namespace {
QByteArray withoutCarriageReturn(QByteArray line) {
  if (line.endsWith('\r')) line.chop(1);
  return line;
}
}  // namespace

QList<QByteArray> LineSplitter::feed(const QByteArray& chunk) {
  QList<QByteArray> lines;
  qsizetype start = 0;
  while (start < chunk.size()) {
    const qsizetype newline = chunk.indexOf('\n', start);
    if (newline < 0) {
      if (!m_discarding) m_pending.append(chunk.constData() + start, chunk.size() - start);
      break;
    }
    if (m_discarding) {
      m_discarding = false;  // the over-long line ends here; it was already counted
    } else {
      m_pending.append(chunk.constData() + start, newline - start);
      lines.push_back(withoutCarriageReturn(m_pending));
    }
    m_pending.clear();
    start = newline + 1;
  }
  if (m_pending.size() > kMaxLineBytes) {
    m_pending.clear();
    m_discarding = true;
    ++m_dropped;
  }
  return lines;
}

QByteArray LineSplitter::takeRemainder() {
  QByteArray rest = m_discarding ? QByteArray() : withoutCarriageReturn(m_pending);
  m_pending.clear();
  m_discarding = false;
  return rest;
}

int LineSplitter::takeDroppedLines() {
  const int n = m_dropped;
  m_dropped = 0;
  return n;
}

}  // namespace netsmith::gui
