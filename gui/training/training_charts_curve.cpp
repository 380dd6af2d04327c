// TrainingCharts (training_charts.h): the learning curve: its graphs and their legend, past runs
// as overlays, the log scale, the points a resume trains again, and its axes fitted to the data.
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "gui/training/chart_colors.h"
#include "gui/training/chart_style.h"
#include "gui/training/training_charts.h"

namespace netsmith::gui {

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

}  // namespace netsmith::gui
