// TrainingCharts (training_charts.h): a run's events fed to the learning curve and the device
// charts, zoom and the replot timer.
#include "gui/training/training_charts.h"

#include <qcustomplot.h>

#include <algorithm>

#include "gui/training/chart_colors.h"
#include "gui/training/chart_export.h"
#include "gui/training/chart_style.h"

namespace netsmith::gui {

TrainingCharts::TrainingCharts(QCustomPlot* curve, const DevicePlots& devices, QObject* parent)
    : QObject(parent), m_curve(curve), m_plots(devices) {

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
  return {m_curve.plot(), m_plots.utilization, m_plots.memory, m_plots.temperature, m_plots.power, m_plots.timing};
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
  m_curve.clear();
  for (auto& d : m_devices)
    for (int m = 0; m < kMetrics; ++m) metricPlot(m)->removeGraph(d.graph[m]);
  m_devices.clear();
  m_sensorsSeen = false;
  m_timingIds.clear();
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
  m_curve.addIteration(e);
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
  m_curve.addEpoch(e);
  m_dirty = true;
}

void TrainingCharts::markPause() {
  for (auto& s : m_devices) s.breakNext = true;
}

void TrainingCharts::setLogScale(bool log) {
  m_curve.setLogScale(log);
  m_dirty = true;
  flush();
}

void TrainingCharts::setOverlays(const QList<CurvePoints>& runs) {
  m_curve.setOverlays(runs);
  m_dirty = true;
  flush();
}

void TrainingCharts::dropAfter(long long epoch, long long iteration) {
  m_dirty = true;
  flush();
  m_curve.dropAfter(epoch, iteration);
  m_dirty = true;
  flush();
}

void TrainingCharts::flush() {
  if (!m_dirty && !m_timingDirty) return;
  for (auto& s : m_devices) {
    if (s.t.isEmpty()) continue;
    for (int m = 0; m < kMetrics; ++m) {
      s.graph[m]->addData(s.t, s.values[m], true);
      keepNewestPoints(s.graph[m], 20000);
      s.values[m].clear();
    }
    s.t.clear();
  }

  // Unless the user zoomed in: then the ranges stay until Reset zoom.
  m_curve.flush(isZoomed(m_curve.plot()));

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

int TrainingCharts::iterationPoints() const { return m_curve.iterationPoints(); }
int TrainingCharts::epochPoints() const { return m_curve.epochPoints(); }
int TrainingCharts::utilizationPoints() const { return metricPoints(kUtilization); }
int TrainingCharts::temperaturePoints() const { return metricPoints(kTemperature); }
int TrainingCharts::powerPoints() const { return metricPoints(kPower); }

}  // namespace netsmith::gui
