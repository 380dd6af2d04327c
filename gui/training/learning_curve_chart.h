// LearningCurveChart: the Training page's learning curve, in a QCustomPlot its caller owns: the
// training loss per iteration and smoothed, the losses and validation error per epoch (the error on
// the right axis), and past runs' curves as overlays. Points are kept pending until flush(), which
// the charts' replot timer calls (TrainingCharts). Also: reading a run's learning_curve.csv.
#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QVector>

#include "gui/run/engine_event.h"

class QCustomPlot;
class QCPGraph;

namespace netsmith::gui {

// One past run's learning curve, for the overlay.
struct CurvePoints {
  QString label;
  int colorSlot = -1;  // overlayColor(colorSlot); -1: by its place among the overlays
  QVector<double> epoch, trainLoss, validationLoss, validationError;
};

// Reads a run folder's learning_curve.csv (epoch,train_loss,validation_loss,validation_error,...);
// empty curve when the file is missing or unreadable. Empty cells read as NaN (gaps).
CurvePoints readLearningCurve(const QString& runFolder);

class LearningCurveChart {
  Q_DECLARE_TR_FUNCTIONS(LearningCurveChart)

 public:
  // Weight b of the smoothed loss, TensorBoard's debiased exponential average: s_t = b s_{t-1} +
  // (1 - b) x_t from s_0 = 0, drawn as s_t / (1 - b^t), so the line starts at the first loss and
  // follows the loss from there instead of lagging behind a seed.
  static constexpr double kSmoothing = 0.9;

  // LiveRun: the Training page's chart, a run's own curves with past runs overlaid and keyed by
  // two legend entries. Comparison: the run history's Compare window, past runs only, each
  // overlay named in the legend ("A · 20261126-101500 training loss").
  enum class Use { LiveRun, Comparison };

  // Styles `plot` and adds the curve's graphs to it.
  explicit LearningCurveChart(QCustomPlot* plot, Use use = Use::LiveRun);

  QCustomPlot* plot() const { return m_plot; }
  void clear();  // a new run starts: its points, pending ones and the smoothing go
  void addIteration(const IterationEvent& e);
  void addEpoch(const EpochEvent& e) { m_pendingEpochs << e; }
  void setLogScale(bool log);
  // Past runs' curves, dotted (training loss) and dash-dotted (validation error), in each run's
  // overlay colour (Note [Chart colours]); the legend keys the two styles once.
  void setOverlays(const QList<CurvePoints>& runs);
  // The points after iteration `iteration` of epoch `epoch` (1-based) go; flush() first.
  void dropAfter(long long epoch, long long iteration);
  // Moves the pending points into the graphs, fits the axes to the data unless the user zoomed,
  // and queues a replot.
  void flush(bool zoomed);

  int iterationPoints() const;
  int epochPoints() const;

 private:
  void style();
  void fitAxes();
  void fitErrorAxis();

  QCustomPlot* m_plot;
  Use m_use;
  QCPGraph *m_iterLoss = nullptr, *m_smoothLoss = nullptr, *m_epochTrain = nullptr, *m_epochValLoss = nullptr,
           *m_epochValError = nullptr;
  QList<QCPGraph*> m_overlayGraphs;
  QCPGraph *m_overlayTrainKey = nullptr, *m_overlayErrorKey = nullptr;  // legend keys, no points
  QVector<double> m_pendingIterX, m_pendingIterLoss, m_pendingSmooth;
  QList<EpochEvent> m_pendingEpochs;
  double m_smoothSum = 0;              // s_t of the debiased average
  double m_smoothWeight = 1;           // b^t
  long long m_iterationsPerEpoch = 0;  // of the last iteration event (dropAfter's x)
};

}  // namespace netsmith::gui
