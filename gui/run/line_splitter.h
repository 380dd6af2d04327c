// LineSplitter: turns a byte stream that arrives in arbitrary chunks (a pipe delivers whatever the
// kernel had) into whole lines. A line longer than kMaxLineBytes is dropped and reported, so a
// runaway child cannot make the GUI hold unbounded memory.
#pragma once

#include <QByteArray>
#include <QList>

namespace netsmith::gui {

class LineSplitter {
 public:
  static constexpr qsizetype kMaxLineBytes = 4 * 1024 * 1024;

  // Appends `chunk`; returns the lines it completed, without "\n" or a trailing "\r".
  QList<QByteArray> feed(const QByteArray& chunk);
  // The stream ended: the text after the last newline (a line cut short by a crash), or empty.
  QByteArray takeRemainder();
  // Lines dropped for being too long since the last call.
  int takeDroppedLines();

 private:
  QByteArray m_pending;
  bool m_discarding = false;  // inside an over-long line: skip to its newline
  int m_dropped = 0;
};

}  // namespace netsmith::gui
