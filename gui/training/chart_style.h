// How the Training page's charts are laid out so that they stay readable at any size: legends in a
// row of their own above the axes (never over the data), wrapped to the plot's width; tick counts
// that never let labels overlap. Both refit before each replot (QCustomPlot::beforeReplot).
#pragma once

#include <QStringList>

class QCustomPlot;

namespace netsmith::gui {

// Legends go in a row of their own between the heading and the axes, their items side by side,
// wrapped to as many columns as the plot's width holds. The row is as high as the legend's items
// and the `reserved` ones (names of entries that come and go) need together, so that an entry that
// comes later never takes height from the axes (Note [Chart colours]).
void styleLegend(QCustomPlot* plot, const QStringList& reserved = {});

// As many ticks as the axis rect holds without their labels overlapping.
void fitTickCounts(QCustomPlot* plot);

}  // namespace netsmith::gui
