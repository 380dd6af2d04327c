#include "gui/training/training_charts.h"

#include <qcustomplot.h>

#include <QDir>
#include <algorithm>
#include <numeric>
#include <QFile>

#include "engine/protocol/learning_curve.h"
#include "gui/training/chart_colors.h"
#include "gui/training/chart_export.h"

namespace netsmith::gui {

namespace {
// The height of `rows` rows of `legend`'s items (one font, one icon size: all are as high).
int legendRowsHeight(const QCPLegend* legend, int rows, int itemHeight) {
  return rows * itemHeight + std::max(0, rows - 1) * legend->rowSpacing();
}

// Legends go in a row of their own between the heading and the axes (never over the data), their
// items side by side, wrapped to as many columns as the plot's width holds (refit before each
// replot, so a resize rewraps them). The row is as high as the legend's items and the `reserved`
// ones (names of entries that come and go, such as the overlays' keys) need together, so an entry
// that comes later never takes height from the axes (Note [Chart colours]).
void styleLegend(QCustomPlot* plot, const QStringList& reserved = {}) {
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

// Keeps the newest points only: a run of many hours must not grow a plot without bound.
void trim(QCPGraph* graph, int keep = 200000) {
  const int n = graph->data()->size();
  if (n > keep) graph->data()->removeBefore((graph->data()->begin() + (n - keep))->key);
}
}  // namespace

TrainingCharts::TrainingCharts(QCustomPlot* curve, const DevicePlots& devices, QObject* parent)
    : QObject(parent), m_curve(curve), m_plots(devices) {
  styleCurvePlot();

  const QString yLabels[kMetrics] = {tr("utilization (%)"), tr("memory (MB)"), tr("temperature (°C)"), tr("power (W)")};
  for (int m = 0; m < kMetrics; ++m) {
    metricPlot(m)->xAxis->setLabel(tr("elapsed (s)"));
    metricPlot(m)->yAxis->setLabel(yLabels[m]);
    styleLegend(metricPlot(m));
  }
  m_plots.utilization->yAxis->setRange(0, 105);

  // Per device, side by side: the step (compute, then the wait for the all-reduce that was not
  // hidden, stacked) and the all-reduce time that ran while backward went on (hidden).
  QCustomPlot* timing = m_plots.timing;
  timing->xAxis->setLabel(tr("device"));
  timing->yAxis->setLabel(tr("ms / iteration"));  // the mean since the run began; short, as the legend takes rows
  auto* group = new QCPBarsGroup(timing);
  group->setSpacing(1);
  const auto bars = [&](const QString& name, const QColor& color) {
    auto* b = new QCPBars(timing->xAxis, timing->yAxis);
    b->setName(name);
    b->setBrush(color);
    b->setPen(Qt::NoPen);
    b->setWidth(0.35);
    return b;
  };
  m_computeBars = bars(tr("compute"), QColor(0x1f, 0x77, 0xb4, 200));
  m_computeBars->setBarsGroup(group);
  // Short names, so that the legend takes two rows, not three, beside the utilization chart at
  // 1366 px (the axes kept 70 px); the tooltip says what each bar is.
  m_waitBars = bars(tr("all-reduce wait"), QColor(0x99, 0x99, 0x99, 180));
  m_waitBars->moveAbove(m_computeBars);
  m_overlapBars = bars(tr("hidden all-reduce"), QColor(0xff, 0x7f, 0x0e, 200));
  m_overlapBars->setBarsGroup(group);
  timing->setToolTip(tr("Per device, the mean per iteration since the run began:\n"
                        "compute: forward, backward and the update;\n"
                        "all-reduce wait (stacked on compute): blocked after backward until the reduced gradients arrive;\n"
                        "hidden all-reduce (beside): the all-reduce time that ran while backward went on."));
  styleLegend(timing);

  const QString names[] = {tr("learning-curve"), tr("utilization"), tr("memory"), tr("temperature"), tr("power"), tr("step-time")};
  const QList<QCustomPlot*> all = plots();
  for (int i = 0; i < all.size(); ++i) {
    QCustomPlot* p = all[i];
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    connect(p, &QCustomPlot::mouseWheel, this, [this, p] { m_zoomed.insert(p); });
    connect(p, &QCustomPlot::mouseMove, this, [this, p](QMouseEvent* e) {
      if (e->buttons() & Qt::LeftButton) m_zoomed.insert(p);
    });
    installChartMenu(p, names[i], [this, p] { resetZoom(p); });
    fitTickCounts(p);
  }

  m_timer.setInterval(kReplotIntervalMs);
  connect(&m_timer, &QTimer::timeout, this, &TrainingCharts::flush);
  m_timer.start();
}

QList<QCustomPlot*> TrainingCharts::plots() const {
  return {m_curve, m_plots.utilization, m_plots.memory, m_plots.temperature, m_plots.power, m_plots.timing};
}

void TrainingCharts::resetZoom(QCustomPlot* plot) {
  m_zoomed.remove(plot);
  // The next flush fits every plot that is not zoomed to its data, this one included.
  m_dirty = true;
  m_timingDirty = plot == m_plots.timing;
  flush();
  plot->replot();
}

void TrainingCharts::styleCurvePlot() {
  QCustomPlot* p = m_curve;
  p->xAxis->setLabel(tr("epoch"));
  p->yAxis->setLabel(tr("loss"));
  p->yAxis2->setVisible(true);
  p->yAxis2->setLabel(tr("validation error"));
  p->yAxis2->setRange(0, 1);  // until there are errors to fit (fitErrorAxis)
  m_iterLoss = p->addGraph(p->xAxis, p->yAxis);
  m_iterLoss->setName(tr("training loss (iteration)"));
  m_iterLoss->setPen(QPen(QColor(0x1f, 0x77, 0xb4, 70), 1));
  m_smoothLoss = p->addGraph(p->xAxis, p->yAxis);
  m_smoothLoss->setName(tr("training loss (smoothed)"));
  m_smoothLoss->setPen(QPen(trainColor(), 2));
  m_epochTrain = p->addGraph(p->xAxis, p->yAxis);
  m_epochTrain->setName(tr("training loss (epoch)"));
  m_epochTrain->setPen(QPen(trainColor().darker(130), 1.5, Qt::DashLine));
  m_epochTrain->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, trainColor().darker(130), Qt::white, 7));
  m_epochValLoss = p->addGraph(p->xAxis, p->yAxis);
  m_epochValLoss->setName(tr("validation loss"));
  m_epochValLoss->setPen(QPen(validationColor(), 2));
  m_epochValLoss->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, validationColor(), Qt::white, 7));
  m_epochValError = p->addGraph(p->xAxis, p->yAxis2);
  m_epochValError->setName(tr("validation error (right axis)"));
  m_epochValError->setPen(QPen(errorColor(), 2));
  m_epochValError->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, errorColor(), errorColor(), 8));
  // Note [Chart colours]: the overlays' keys, two entries however many runs are ticked (each run's
  // colour is its swatch in the run history); they have no points of their own.
  const QColor key(0x55, 0x55, 0x55);
  m_overlayTrainKey = p->addGraph(p->xAxis, p->yAxis);
  m_overlayTrainKey->setName(tr("ticked runs: training loss"));
  m_overlayTrainKey->setPen(QPen(key, 1.6, Qt::DotLine));
  m_overlayErrorKey = p->addGraph(p->xAxis, p->yAxis2);
  m_overlayErrorKey->setName(tr("ticked runs: validation error"));
  m_overlayErrorKey->setPen(QPen(key, 1.6, Qt::DashDotLine));
  for (QCPGraph* g : {m_overlayTrainKey, m_overlayErrorKey}) g->removeFromLegend();
  styleLegend(p, {m_overlayTrainKey->name(), m_overlayErrorKey->name()});
  p->xAxis->setRange(0, 1);
  p->yAxis->setRange(0, 1);
}

void TrainingCharts::clear() {
  for (QCPGraph* g : {m_iterLoss, m_smoothLoss, m_epochTrain, m_epochValLoss, m_epochValError}) g->data()->clear();
  for (auto& d : m_devices)
    for (int m = 0; m < kMetrics; ++m) metricPlot(m)->removeGraph(d.graph[m]);
  m_devices.clear();
  m_sensorsSeen = false;
  m_timingIds.clear();
  m_pendingIterX.clear();
  m_pendingIterLoss.clear();
  m_pendingSmooth.clear();
  m_pendingEpochs.clear();
  m_smoothSum = 0;
  m_smoothWeight = 1;
  m_iterationsPerEpoch = 0;
  m_timingDirty = true;
  m_dirty = true;
  flush();
  emit cleared();
}

TrainingCharts::DeviceSeries& TrainingCharts::device(const QString& id) {
  auto it = m_devices.find(id);
  if (it != m_devices.end()) return *it;
  DeviceSeries s;
  const QColor color = deviceColor(m_devices.size());
  for (int m = 0; m < kMetrics; ++m) {
    s.graph[m] = metricPlot(m)->addGraph();
    s.graph[m]->setName(id);
    s.graph[m]->setPen(QPen(color, 1.6));
  }
  m_timingIds << id;
  return *m_devices.insert(id, s);
}

void TrainingCharts::addIteration(const IterationEvent& e, double elapsedS) {
  if (e.iterationsPerEpoch > 0) m_iterationsPerEpoch = e.iterationsPerEpoch;
  if (hasValue(e.loss) && e.iterationsPerEpoch > 0) {
    // x in epochs: epoch 1, iteration k of n ends at (k / n) + 0.
    const double x = (e.epoch - 1) + double(e.iteration) / double(e.iterationsPerEpoch);
    // TensorBoard's debiased average (kSmoothing): the sum starts at 0 and is divided by the weight
    // the real values carry so far, 1 - b^t.
    m_smoothSum = kSmoothing * m_smoothSum + (1 - kSmoothing) * e.loss;
    m_smoothWeight *= kSmoothing;
    m_pendingIterX << x;
    m_pendingIterLoss << e.loss;
    m_pendingSmooth << m_smoothSum / (1 - m_smoothWeight);
  }
  for (const DeviceSample& d : e.devices) {
    DeviceSeries& s = device(d.id);
    const double values[kMetrics] = {hasValue(d.utilization) ? 100.0 * d.utilization : kNoValue, d.memoryMb,
                                     d.temperatureC, d.powerW};
    if (std::any_of(std::begin(values), std::end(values), hasValue)) {
      // A pause (or any long silence) breaks the lines: a NaN point in the middle of the gap, which
      // QCustomPlot draws as a gap, not a diagonal from the last sample before it.
      if (hasValue(s.lastT)) {
        const double gap = elapsedS - s.lastT;
        const bool silence = gap > std::max(kGapMinS, kGapFactor * (hasValue(s.interval) ? s.interval : gap));
        if (s.breakNext || silence) {
          s.t << s.lastT + gap / 2;
          for (int m = 0; m < kMetrics; ++m) s.values[m] << qQNaN();
        } else if (gap > 0) {
          s.interval = hasValue(s.interval) ? 0.8 * s.interval + 0.2 * gap : gap;
        }
      }
      s.breakNext = false;
      s.lastT = elapsedS;
      s.t << elapsedS;
      for (int m = 0; m < kMetrics; ++m) s.values[m] << (hasValue(values[m]) ? values[m] : qQNaN());
      if (!m_sensorsSeen && (hasValue(d.temperatureC) || hasValue(d.powerW))) {
        m_sensorsSeen = true;
        emit sensorDataArrived();
      }
    }
    if (hasValue(d.computeMs)) {
      s.computeSum += d.computeMs;
      s.overlapSum += hasValue(d.overlapMs) ? d.overlapMs : 0;
      s.waitSum += hasValue(d.waitMs) ? d.waitMs : 0;
      ++s.samples;
      m_timingDirty = true;
    }
  }
  m_dirty = true;
}

void TrainingCharts::addEpoch(const EpochEvent& e) {
  m_pendingEpochs << e;
  m_dirty = true;
}

void TrainingCharts::markPause() {
  for (auto& s : m_devices) s.breakNext = true;
}

void TrainingCharts::setLogScale(bool log) {
  if (log) {
    m_curve->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_curve->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  } else {
    m_curve->yAxis->setScaleType(QCPAxis::stLinear);
    m_curve->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
  m_dirty = true;
  flush();
}

void TrainingCharts::setOverlays(const QList<CurvePoints>& runs) {
  for (QCPGraph* g : m_overlayGraphs) m_curve->removeGraph(g);
  m_overlayGraphs.clear();
  for (int i = 0; i < runs.size(); ++i) {
    const CurvePoints& run = runs[i];
    const QColor color = overlayColor(run.colorSlot >= 0 ? run.colorSlot : i);
    QCPGraph* train = m_curve->addGraph(m_curve->xAxis, m_curve->yAxis);
    train->setName(tr("%1 training loss").arg(run.label));
    train->setPen(QPen(color, 1.6, Qt::DotLine));
    train->setData(run.epoch, run.trainLoss, true);
    QCPGraph* err = m_curve->addGraph(m_curve->xAxis, m_curve->yAxis2);
    err->setName(tr("%1 validation error").arg(run.label));
    err->setPen(QPen(color, 1.6, Qt::DashDotLine));
    err->setData(run.epoch, run.validationError, true);
    // Named for the CSV export, keyed by the two entries below (Note [Chart colours]).
    train->removeFromLegend();
    err->removeFromLegend();
    m_overlayGraphs << train << err;
  }
  for (QCPGraph* key : {m_overlayTrainKey, m_overlayErrorKey}) {
    if (runs.isEmpty()) key->removeFromLegend();
    else if (!m_curve->legend->hasItemWithPlottable(key)) key->addToLegend();
  }
  m_dirty = true;
  flush();
}

void TrainingCharts::dropAfter(long long epoch, long long iteration) {
  m_dirty = true;
  flush();
  // The x of the checkpoint's own iteration, as addIteration placed it; a hair above it keeps it.
  const double x = (epoch - 1) + (m_iterationsPerEpoch > 0 ? double(iteration) / double(m_iterationsPerEpoch) : 0.0);
  for (QCPGraph* g : {m_iterLoss, m_smoothLoss}) g->data()->removeAfter(x + 1e-9);
  // Epoch points sit at x = epoch: the epochs from `epoch` on are trained again.
  for (QCPGraph* g : {m_epochTrain, m_epochValLoss, m_epochValError}) g->data()->removeAfter(epoch - 0.5);
  m_dirty = true;
  flush();
}

void TrainingCharts::flush() {
  if (!m_dirty && !m_timingDirty) return;
  if (!m_pendingIterX.isEmpty()) {
    m_iterLoss->addData(m_pendingIterX, m_pendingIterLoss, true);
    m_smoothLoss->addData(m_pendingIterX, m_pendingSmooth, true);
    trim(m_iterLoss);
    trim(m_smoothLoss);
    m_pendingIterX.clear();
    m_pendingIterLoss.clear();
    m_pendingSmooth.clear();
  }
  for (const EpochEvent& e : std::as_const(m_pendingEpochs)) {
    const double x = e.epoch;
    if (hasValue(e.trainLoss)) m_epochTrain->addData(x, e.trainLoss);
    if (hasValue(e.validationLoss)) m_epochValLoss->addData(x, e.validationLoss);
    if (hasValue(e.validationError)) m_epochValError->addData(x, e.validationError);
  }
  m_pendingEpochs.clear();
  for (auto& s : m_devices) {
    if (s.t.isEmpty()) continue;
    for (int m = 0; m < kMetrics; ++m) {
      s.graph[m]->addData(s.t, s.values[m], true);
      trim(s.graph[m], 20000);
      s.values[m].clear();
    }
    s.t.clear();
  }

  // Axes: the curve from 0 to the furthest epoch seen, losses from their range (unless the user
  // zoomed in: then the ranges stay until Reset zoom).
  if (!isZoomed(m_curve)) fitCurveAxes();
  m_curve->replot(QCustomPlot::rpQueuedReplot);

  for (int m = 0; m < kMetrics; ++m) {
    QCustomPlot* p = metricPlot(m);
    p->legend->setVisible(p->graphCount() > 0);  // no empty legend box before the first device
    if (!isZoomed(p)) {
      p->xAxis->rescale();
      if (m != kUtilization) {
        p->yAxis->rescale();
        const QCPRange r = p->yAxis->range();
        p->yAxis->setRange(0, std::max(1.0, r.upper * 1.15));
      }
    }
    p->replot(QCustomPlot::rpQueuedReplot);
  }
  if (m_timingDirty) updateTimingBars();
  m_dirty = m_timingDirty = false;
}

void TrainingCharts::fitCurveAxes() {
  bool found = false;
  QCPRange lossRange;
  for (int i = 0; i < m_curve->graphCount(); ++i) {
    QCPGraph* g = m_curve->graph(i);
    if (g->valueAxis() != m_curve->yAxis || g->data()->isEmpty()) continue;
    bool ok = false;
    const QCPRange r = g->getValueRange(ok, QCP::sdBoth);
    if (!ok) continue;
    lossRange = found ? QCPRange(std::min(lossRange.lower, r.lower), std::max(lossRange.upper, r.upper)) : r;
    found = true;
  }
  if (found) {
    if (m_curve->yAxis->scaleType() == QCPAxis::stLogarithmic)
      m_curve->yAxis->setRange(std::max(lossRange.lower * 0.8, 1e-6), lossRange.upper * 1.25);
    else
      m_curve->yAxis->setRange(0, lossRange.upper * 1.08);
  }
  bool keysOk = false;
  double maxKey = 1;
  for (int i = 0; i < m_curve->graphCount(); ++i) {
    const QCPRange k = m_curve->graph(i)->getKeyRange(keysOk);
    if (keysOk) maxKey = std::max(maxKey, k.upper);
  }
  m_curve->xAxis->setRange(0, std::ceil(maxKey));
  fitErrorAxis();
}

void TrainingCharts::fitErrorAxis() {
  // The errors seen (this run's and the overlays'), with a margin of a tenth of their spread (at
  // least 0.02) on each side, clamped to [0, 1]; 0 to 1 while there is none.
  bool found = false;
  QCPRange range(0, 1);
  for (int i = 0; i < m_curve->graphCount(); ++i) {
    QCPGraph* g = m_curve->graph(i);
    if (g->valueAxis() != m_curve->yAxis2 || g->data()->isEmpty()) continue;
    bool ok = false;
    const QCPRange r = g->getValueRange(ok, QCP::sdBoth);
    if (!ok) continue;
    range = found ? QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper)) : r;
    found = true;
  }
  if (found) {
    const double margin = std::max(0.02, 0.1 * range.size());
    range = QCPRange(std::max(0.0, range.lower - margin), std::min(1.0, range.upper + margin));
  }
  m_curve->yAxis2->setRange(range);
}

void TrainingCharts::updateTimingBars() {
  QVector<double> keys, compute, overlap, wait;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  double top = 0;
  for (int i = 0; i < m_timingIds.size(); ++i) {
    const DeviceSeries& s = m_devices[m_timingIds[i]];
    const double n = std::max(1, s.samples);
    keys << i + 1;
    compute << s.computeSum / n;
    overlap << s.overlapSum / n;
    wait << s.waitSum / n;
    top = std::max(top, std::max(s.computeSum + s.waitSum, s.overlapSum) / n);
    ticker->addTick(i + 1, m_timingIds[i]);
  }
  m_computeBars->setData(keys, compute, true);
  m_overlapBars->setData(keys, overlap, true);
  m_waitBars->setData(keys, wait, true);
  QCustomPlot* timing = m_plots.timing;
  timing->xAxis->setTicker(ticker);
  if (!isZoomed(timing)) {
    timing->xAxis->setRange(0.3, std::max<qsizetype>(1, m_timingIds.size()) + 0.7);
    timing->yAxis->setRange(0, std::max(1.0, top * 1.3));
  }
  timing->replot(QCustomPlot::rpQueuedReplot);
}

QCustomPlot* TrainingCharts::metricPlot(int metric) const {
  switch (metric) {
    case kUtilization: return m_plots.utilization;
    case kMemory: return m_plots.memory;
    case kTemperature: return m_plots.temperature;
    default: return m_plots.power;
  }
}

int TrainingCharts::metricPoints(int metric) const {
  int n = 0;
  for (const auto& s : m_devices) n += s.graph[metric]->data()->size();
  return n;
}

int TrainingCharts::iterationPoints() const { return m_iterLoss->data()->size(); }
int TrainingCharts::epochPoints() const { return m_epochTrain->data()->size(); }
int TrainingCharts::utilizationPoints() const { return metricPoints(kUtilization); }
int TrainingCharts::temperaturePoints() const { return metricPoints(kTemperature); }
int TrainingCharts::powerPoints() const { return metricPoints(kPower); }

CurvePoints readLearningCurve(const QString& runFolder) {
  CurvePoints c;
  c.label = QDir(runFolder).dirName();
  const QString path = QDir(runFolder).filePath(QStringLiteral("learning_curve.csv"));
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return c;
  protocol::LearningCurve curve;
  try {
    curve = protocol::learningCurveFromCsv(f.readAll().toStdString(), path.toStdString());
  } catch (const protocol::ReadError&) {
    c.label += QObject::tr(" (learning_curve.csv is damaged)");  // the legend says why no line is drawn
    return c;
  }
  for (const protocol::LearningCurveRow& r : curve) {
    c.epoch << static_cast<double>(r.epoch);
    c.trainLoss << r.trainLoss;
    c.validationLoss << r.validationLoss.value_or(qQNaN());
    c.validationError << r.validationError.value_or(qQNaN());
  }
  return c;
}

}  // namespace netsmith::gui
