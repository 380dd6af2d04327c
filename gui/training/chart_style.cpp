// Chart style (chart_style.h): the Training page's legends in a row of their own, tick counts that
// fit the axes, and the bound on a graph's points.
#include "gui/training/chart_style.h"

#include <qcustomplot.h>

#include <algorithm>
#include <numeric>

namespace netsmith::gui {

namespace {
// The height of `rows` rows of `legend`'s items (one font, one icon size: all are as high).
int legendRowsHeight(const QCPLegend* legend, int rows, int itemHeight) {
  return rows * itemHeight + std::max(0, rows - 1) * legend->rowSpacing();
}
}  // namespace

// Legends go in a row of their own between the heading and the axes (never over the data), their
// items side by side, wrapped to as many columns as the plot's width holds (refit before each
// replot, so a resize rewraps them). The row is as high as the legend's items and the `reserved`
// ones (names of entries that come and go, such as the overlays' keys) need together, so an entry
// that comes later never takes height from the axes (Note [Chart colours]).
void styleLegend(QCustomPlot* plot, const QStringList& reserved) {
  QCPLegend* legend = plot->legend;
  legend->setVisible(true);
  QFont f = plot->font();
  f.setPointSizeF(f.pointSizeF() * 0.85);
  legend->setFont(f);
  legend->setBrush(Qt::NoBrush);
  legend->setBorderPen(Qt::NoPen);
  legend->setMargins(QMargins(4, 0, 4, 0));
  legend->setRowSpacing(0);
  legend->setColumnSpacing(12);
  // A short line sample (QCustomPlot draws 32×18): a legend row is as high as its text, and more
  // entries share a row.
  legend->setIconSize(20, 12);
  QCPLayoutGrid* layout = plot->plotLayout();
  int row = 0;
  while (row < layout->rowCount() && layout->element(row, 0) != plot->axisRect()) ++row;
  if (row == layout->rowCount()) row = 0;
  if (plot->axisRect()->insetLayout()->take(legend)) plot->axisRect()->insetLayout()->simplify();
  layout->insertRow(row);
  layout->addElement(row, 0, legend);
  layout->setRowStretchFactor(row, 0.001);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(1);
  // The plot's width decides how many items go in a row, not the other way round: a legend of long
  // names must not make the widget ask its layout for more width than its neighbours.
  legend->setMinimumSize(1, 0);
  // And an empty legend (no device yet) must not narrow the column it shares with the axes to its
  // own width: a maximum below QWIDGETSIZE_MAX replaces the legend's own (tiny) maximum.
  legend->setMaximumSize(100000, QWIDGETSIZE_MAX);
  QObject::connect(plot, &QCustomPlot::beforeReplot, legend, [plot, legend, reserved] {
    QList<int> widths;  // each entry's, in the legend's order, the reserved ones last
    int itemHeight = 0;
    QStringList shown;
    QMargins itemMargins(7, 5, 7, 4);  // QCPAbstractLegendItem's own
    for (int i = 0; i < legend->itemCount(); ++i)  // counts the grid's cells, empty ones too
      if (QCPAbstractLegendItem* item = legend->item(i)) {
        const QSize hint = item->minimumOuterSizeHint();
        widths << hint.width();
        itemHeight = std::max(itemHeight, hint.height());
        itemMargins = item->margins();
        if (auto* p = qobject_cast<QCPPlottableLegendItem*>(item)) shown << p->plottable()->name();
      }
    const int items = static_cast<int>(widths.size());
    // A reserved entry not shown now, measured as QCPPlottableLegendItem measures itself.
    const QFontMetrics metrics(legend->font());
    for (const QString& name : reserved) {
      if (shown.contains(name)) continue;
      const QRect text = metrics.boundingRect(0, 0, 0, legend->iconSize().height(), Qt::TextDontClip, name);
      widths << itemMargins.left() + legend->iconSize().width() + legend->iconTextPadding() + text.width() + itemMargins.right();
      itemHeight = std::max(itemHeight, std::max(text.height(), legend->iconSize().height()) + itemMargins.top() +
                                            itemMargins.bottom());
    }
    const int count = static_cast<int>(widths.size());
    const int room = plot->width() - legend->margins().left() - legend->margins().right();
    // The most columns whose widest entries fit side by side (a column is as wide as its widest).
    int columns = 1;
    for (int c = std::max(1, count); c > 1 && columns == 1; --c) {
      QVector<int> column(c, 0);
      for (int i = 0; i < count; ++i) column[i % c] = std::max(column[i % c], widths[i]);
      if (std::accumulate(column.begin(), column.end(), 0) + (c - 1) * legend->columnSpacing() <= room) columns = c;
    }
    // Items added before the legend moved here sit in one row: rearranged too.
    if (columns != legend->wrap() || legend->columnCount() > std::max(1, std::min(columns, items))) {
      legend->setWrap(columns);
      legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
    if (!reserved.isEmpty()) legend->setMinimumSize(1, legendRowsHeight(legend, (count + columns - 1) / columns, itemHeight));
  });
}

// Tick labels never overlap, however small a plot is made: as many ticks as the axis rect's height
// holds one label per 2.5 lines of text, and its width one per 90 pixels (refit before each
// replot; a text ticker, the step-time plot's devices, keeps its own ticks).
void fitTickCounts(QCustomPlot* plot) {
  QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] {
    const QRect r = plot->axisRect()->rect();
    if (r.height() <= 0 || r.width() <= 0) return;
    for (QCPAxis* axis : {plot->yAxis, plot->yAxis2}) {
      const int line = QFontMetrics(axis->tickLabelFont()).height();
      axis->ticker()->setTickCount(std::clamp(r.height() * 2 / (5 * line), 2, 6));
    }
    plot->xAxis->ticker()->setTickCount(std::clamp(r.width() / 90, 2, 8));
  });
}

void keepNewestPoints(QCPGraph* graph, int keep) {
  const int n = graph->data()->size();
  if (n > keep) graph->data()->removeBefore((graph->data()->begin() + (n - keep))->key);
}

}  // namespace netsmith::gui
