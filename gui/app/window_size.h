// The first window's size and place (Note [Window size]).
#pragma once

#include <QMargins>
#include <QRect>
#include <QSize>

class QWidget;

namespace netsmith::gui {

// Note [Window size]
// A first window (no geometry saved yet) opens at kPreferredWindowSize where the screen has room,
// and otherwise at the screen's available area (the taskbar left out) less the frame the window
// manager adds: the title bar and borders are not known before the window is shown, so
// kAssumedFrame stands for them. It is never smaller than the window's minimum size, and it is
// placed in the middle of the available area. A geometry saved by an earlier session is restored
// as it was (Qt moves it onto a screen that exists).
inline constexpr QSize kPreferredWindowSize{1440, 900};
inline constexpr QMargins kAssumedFrame{4, 32, 4, 4};

// The size of a first window on a screen whose available area is `available`, for a window whose
// minimum size is `minimum`.
QSize initialWindowSize(const QRect& available, const QSize& minimum);

// Gives `window` (a top-level widget not shown yet) initialWindowSize() on its screen and centres it there.
void sizeToScreen(QWidget* window);

}  // namespace netsmith::gui
