// A chart's right-click menu — Export chart as PNG…, Export data as CSV…, Reset zoom — and the
// exports behind it, for any QCustomPlot (the Training page's charts, the confusion matrix).
#pragma once

#include <QString>
#include <functional>

class QCustomPlot;
class QMenu;

namespace netsmith::gui {

// The plot's data as CSV: a header `series,x,y`, then one row per point of every line and bar set
// in the plot, in the plot's order: the series' legend name (quoted when it holds a comma or a
// quote), the key (epoch, elapsed seconds; for bars the device's tick label) and the value. Gaps
// (NaN points that break a line) are left out.
QString chartCsv(QCustomPlot* plot);

// The plot as a PNG of its size on screen; false with the reason in `error`.
bool saveChartPng(QCustomPlot* plot, const QString& file, QString* error = nullptr);
bool saveChartCsv(QCustomPlot* plot, const QString& file, QString* error = nullptr);

// The menu for `plot` (deleted when closed); action object names "exportChartPng",
// "exportChartCsv" and, when `resetZoom` is given, "resetZoom". `name` names the files offered.
QMenu* chartMenu(QCustomPlot* plot, const QString& name, const std::function<void()>& resetZoom = {});
// Opens chartMenu on a right click on `plot`.
void installChartMenu(QCustomPlot* plot, const QString& name, const std::function<void()>& resetZoom = {});

}  // namespace netsmith::gui
