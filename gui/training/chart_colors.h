// The Training page's chart colours (Note [Chart colours]): the current run's series, the devices'
// lines, and the past runs overlaid on the learning curve, with the distance that keeps them apart.
#pragma once

#include <QColor>
#include <QList>

namespace netsmith::gui {

// Note [Chart colours]
// A past run overlaid on the learning curve must not look like the current run or like another
// overlay: its colour comes from a palette without the current run's blue, red and green, whose
// colours are at least kMinOverlayDistance apart (CIE76 ΔE) from each other and from those three.
// An overlay keeps its colour while it stays ticked (the run history shows it as a swatch), so
// ticking another run never repaints the ones already shown.
inline constexpr int kOverlayColors = 8;
inline constexpr double kMinOverlayDistance = 30;

// The current run's training loss, validation loss and validation error.
QColor trainColor();
QColor validationColor();
QColor errorColor();

// Device i's line (utilization, memory, temperature, power): the usual ten-colour palette.
QColor deviceColor(int i);

// The overlay colour of `slot` (any integer; the palette repeats after kOverlayColors).
QColor overlayColor(int slot);

// CIE76 colour difference: the Euclidean distance in CIELAB (D65). About 2 is just noticeable;
// lines drawn thin and dotted need a good deal more to be told apart at a glance.
double colorDistance(const QColor& a, const QColor& b);

}  // namespace netsmith::gui
