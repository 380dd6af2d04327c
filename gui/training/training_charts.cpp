// TrainingCharts (training_charts.h): the plots fed by a run's events, the device charts, zoom and the
// replot timer. The learning curve's own graphs, overlays and axes: training_charts_curve.cpp.
#include "gui/training/training_charts.h"

#include <qcustomplot.h>

#include <QDir>
#include <algorithm>
#include <numeric>
#include <QFile>

#include "engine/protocol/learning_curve.h"
#include "gui/training/chart_colors.h"
#include "gui/training/chart_export.h"
#include "gui/training/chart_style.h"

namespace netsmith::gui {

namespace {
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
