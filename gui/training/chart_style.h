// How the Training page's charts stay readable at any size and over any run: legends in a row of
// their own above the axes (never over the data), wrapped to the plot's width; tick counts that
// never let labels overlap (both refit before each replot, QCustomPlot::beforeReplot); and a bound
// on the points a graph keeps.
#pragma once

#include <QStringList>

class QCPGraph;
class QCustomPlot;

namespace netsmith::gui {

// Legends go in a row of their own between the heading and the axes, their items side by side,
// wrapped to as many columns as the plot's width holds. The row is as high as the legend's items
// and the `reserved` ones (names of entries that come and go) need together, so that an entry that
// comes later never takes height from the axes (Note [Chart colours]).
void styleLegend(QCustomPlot* plot, const QStringList& reserved = {});

// As many ticks as the axis rect holds without their labels overlapping.
void fitTickCounts(QCustomPlot* plot);

// Keeps the newest `keep` points only: a run of many hours must not grow a plot without bound.
void keepNewestPoints(QCPGraph* graph, int keep = 200000);

}  // namespace netsmith::gui
