// StatusLine (status_line.h): the Training page's status line, broken into lines at its width.
#include "gui/training/status_line.h"

#include <QTextLayout>

#include <algorithm>

namespace netsmith::gui {

StatusLine::StatusLine(const QString& text, QWidget* parent) : QLabel(parent), m_full(text) {
  fit();
  setWordWrap(false);  // fit() breaks the lines itself
  setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont bold = font();
  bold.setBold(true);
  setFont(bold);
}

void StatusLine::showStatus(const QString& text, bool error) {
  m_full = text;
  m_error = error;
  fit();
  setToolTip(text);
  setStyleSheet(error ? QStringLiteral("color:#c0392b") : QString());
}

void StatusLine::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  fit();
}

int StatusLine::heightFor(int lines) const { return std::max(lines, int(kMinLines)) * fontMetrics().lineSpacing() + 4; }

void StatusLine::fit() {
  const int width = std::max(contentsRect().width(), 50);
  // Each paragraph of the sentence broken at the label's width; from line kMaxLines on, the
  // rest joins the last line, which is cut with "…".
  const QStringList paragraphs = m_full.split(QLatin1Char('\n'));
  QStringList lines;
  for (int p = 0; p < paragraphs.size(); ++p) {
    QTextLayout layout(paragraphs[p], font());
    layout.beginLayout();
    bool cut = false;
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
      line.setLineWidth(width);
      if (lines.size() == kMaxLines) {
        const QString rest = (QStringList{paragraphs[p].mid(line.textStart())} + paragraphs.mid(p + 1)).join(QLatin1Char(' '));
        lines.back() = fontMetrics().elidedText(lines.back() + QLatin1Char(' ') + rest, Qt::ElideRight, width);
        cut = true;
        break;
      }
      lines << paragraphs[p].mid(line.textStart(), line.textLength()).trimmed();
    }
    layout.endLayout();
    if (cut) break;
  }
  QLabel::setText(lines.join(QLatin1Char('\n')));
  if (lines.size() != m_lines) {
    m_lines = static_cast<int>(lines.size());
    setMinimumHeight(heightFor(m_lines));
    updateGeometry();
  }
}

}  // namespace netsmith::gui
