// LearningCurveChart (learning_curve_chart.h): the curve's graphs and their legend, its points,
// past runs as overlays, the log scale, the points a resume trains again, and its axes fitted to
// the data; and a run's learning_curve.csv read for the overlays.
#include "gui/training/learning_curve_chart.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <algorithm>
#include <cmath>

#include "engine/protocol/learning_curve.h"
#include "gui/training/chart_colors.h"
#include "gui/training/chart_style.h"

namespace netsmith::gui {

LearningCurveChart::LearningCurveChart(QCustomPlot* plot, Use use) : m_plot(plot), m_use(use) { style(); }

void LearningCurveChart::clear() {
  for (QCPGraph* g : {m_iterLoss, m_smoothLoss, m_epochTrain, m_epochValLoss, m_epochValError}) g->data()->clear();
  m_pendingIterX.clear();
  m_pendingIterLoss.clear();
  m_pendingSmooth.clear();
  m_pendingEpochs.clear();
  m_smoothSum = 0;
  m_smoothWeight = 1;
  m_iterationsPerEpoch = 0;
}

void LearningCurveChart::addIteration(const IterationEvent& e) {
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
}

void LearningCurveChart::flush(bool zoomed) {
  if (!m_pendingIterX.isEmpty()) {
    m_iterLoss->addData(m_pendingIterX, m_pendingIterLoss, true);
    m_smoothLoss->addData(m_pendingIterX, m_pendingSmooth, true);
    keepNewestPoints(m_iterLoss);
    keepNewestPoints(m_smoothLoss);
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
  // Axes: the curve from 0 to the furthest epoch seen, losses from their range.
  if (!zoomed) fitAxes();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int LearningCurveChart::iterationPoints() const { return m_iterLoss->data()->size(); }
int LearningCurveChart::epochPoints() const { return m_epochTrain->data()->size(); }

void LearningCurveChart::style() {
  QCustomPlot* p = m_plot;
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
  if (m_use == Use::Comparison) {
    // No run of its own: the legend names the compared runs' lines only (setOverlays).
    for (QCPGraph* g : {m_iterLoss, m_smoothLoss, m_epochTrain, m_epochValLoss, m_epochValError}) g->removeFromLegend();
    styleLegend(p);
  } else {
    styleLegend(p, {m_overlayTrainKey->name(), m_overlayErrorKey->name()});
  }
  p->xAxis->setRange(0, 1);
  p->yAxis->setRange(0, 1);
}

void LearningCurveChart::setLogScale(bool log) {
  if (log) {
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  } else {
    m_plot->yAxis->setScaleType(QCPAxis::stLinear);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
}

void LearningCurveChart::setOverlays(const QList<CurvePoints>& runs) {
  for (QCPGraph* g : m_overlayGraphs) m_plot->removeGraph(g);
  m_overlayGraphs.clear();
  for (int i = 0; i < runs.size(); ++i) {
    const CurvePoints& run = runs[i];
    const QColor color = overlayColor(run.colorSlot >= 0 ? run.colorSlot : i);
    QCPGraph* train = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
    train->setName(tr("%1 training loss").arg(run.label));
    train->setPen(QPen(color, 1.6, Qt::DotLine));
    train->setData(run.epoch, run.trainLoss, true);
    QCPGraph* err = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    err->setName(tr("%1 validation error").arg(run.label));
    err->setPen(QPen(color, 1.6, Qt::DashDotLine));
    err->setData(run.epoch, run.validationError, true);
    m_overlayGraphs << train << err;
    // Two runs compared: each line by name. On the Training page: named for the CSV export, keyed
    // by the two entries below (Note [Chart colours]).
    if (m_use == Use::Comparison) continue;
    train->removeFromLegend();
    err->removeFromLegend();
  }
  if (m_use == Use::Comparison) return;
  for (QCPGraph* key : {m_overlayTrainKey, m_overlayErrorKey}) {
    if (runs.isEmpty()) key->removeFromLegend();
    else if (!m_plot->legend->hasItemWithPlottable(key)) key->addToLegend();
  }
}

void LearningCurveChart::dropAfter(long long epoch, long long iteration) {
  // The x of the checkpoint's own iteration, as addIteration placed it; a hair above it keeps it.
  const double x = (epoch - 1) + (m_iterationsPerEpoch > 0 ? double(iteration) / double(m_iterationsPerEpoch) : 0.0);
  for (QCPGraph* g : {m_iterLoss, m_smoothLoss}) g->data()->removeAfter(x + 1e-9);
  // Epoch points sit at x = epoch: the epochs from `epoch` on are trained again.
  for (QCPGraph* g : {m_epochTrain, m_epochValLoss, m_epochValError}) g->data()->removeAfter(epoch - 0.5);
}

void LearningCurveChart::fitAxes() {
  bool found = false;
  QCPRange lossRange;
  for (int i = 0; i < m_plot->graphCount(); ++i) {
    QCPGraph* g = m_plot->graph(i);
    if (g->valueAxis() != m_plot->yAxis || g->data()->isEmpty()) continue;
    bool ok = false;
    const QCPRange r = g->getValueRange(ok, QCP::sdBoth);
    if (!ok) continue;
    lossRange = found ? QCPRange(std::min(lossRange.lower, r.lower), std::max(lossRange.upper, r.upper)) : r;
    found = true;
  }
  if (found) {
    if (m_plot->yAxis->scaleType() == QCPAxis::stLogarithmic)
      m_plot->yAxis->setRange(std::max(lossRange.lower * 0.8, 1e-6), lossRange.upper * 1.25);
    else
      m_plot->yAxis->setRange(0, lossRange.upper * 1.08);
  }
  bool keysOk = false;
  double maxKey = 1;
  for (int i = 0; i < m_plot->graphCount(); ++i) {
    const QCPRange k = m_plot->graph(i)->getKeyRange(keysOk);
    if (keysOk) maxKey = std::max(maxKey, k.upper);
  }
  m_plot->xAxis->setRange(0, std::ceil(maxKey));
  fitErrorAxis();
}

void LearningCurveChart::fitErrorAxis() {
  // The errors seen (this run's and the overlays'), with a margin of a tenth of their spread (at
  // least 0.02) on each side, clamped to [0, 1]; 0 to 1 while there is none.
  bool found = false;
  QCPRange range(0, 1);
  for (int i = 0; i < m_plot->graphCount(); ++i) {
    QCPGraph* g = m_plot->graph(i);
    if (g->valueAxis() != m_plot->yAxis2 || g->data()->isEmpty()) continue;
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
  m_plot->yAxis2->setRange(range);
}

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
