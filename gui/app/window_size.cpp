#include "gui/app/window_size.h"

#include <QScreen>
#include <QWidget>

namespace netsmith::gui {

QSize initialWindowSize(const QRect& available, const QSize& minimum) {
  const QSize room = available.size().shrunkBy(kAssumedFrame);
  return kPreferredWindowSize.boundedTo(room).expandedTo(minimum);
}

void sizeToScreen(QWidget* window) {
  const QScreen* screen = window->screen();
  if (!screen) {
    window->resize(kPreferredWindowSize.expandedTo(window->minimumSize()));
    return;
  }
  const QRect available = screen->availableGeometry();
  const QSize size = initialWindowSize(available, window->minimumSize());
  window->resize(size);
  // The frame's top-left corner where the framed window sits in the middle of the available area
  // (or at its top-left corner when the minimum size is larger than the screen).
  const QSize framed = size.grownBy(kAssumedFrame);
  const QPoint corner(available.x() + std::max(0, (available.width() - framed.width()) / 2),
                      available.y() + std::max(0, (available.height() - framed.height()) / 2));
  window->move(corner);
}

}  // namespace netsmith::gui
