// The Training page's per-device charts fed directly with events: a GPU's temperature and power
// (NVML) get lines of their own and announce themselves once; CPU workers have none; the step
// bars show the all-reduce time hidden behind backward next to compute + wait.
#include <qcustomplot.h>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/training/chart_colors.h"
#include "gui/training/chart_export.h"
#include "gui/training/training_charts.h"

using namespace netsmith::gui;

namespace {

DeviceSample gpu(const QString& id, double temperature, double power) {
  DeviceSample d;
  d.id = id;
  d.computeMs = 10;
  d.syncMs = 4;
  d.overlapMs = 3;
  d.waitMs = 1;
  d.utilization = 0.8;
  d.memoryMb = 500;
  d.temperatureC = temperature;
  d.powerW = power;
  return d;
}

IterationEvent iteration(int i, const QList<DeviceSample>& devices) {
  IterationEvent e;
  e.epoch = 1;
  e.iteration = i;
  e.iterationsPerEpoch = 10;
  e.loss = 1.0 / i;
  e.devices = devices;
  return e;
}

// The legend's entries (its grid counts empty cells too).
int legendEntries(const QCustomPlot& plot) {
  int n = 0;
  for (int i = 0; i < plot.legend->itemCount(); ++i) n += plot.legend->item(i) ? 1 : 0;
  return n;
}

QCPBars* barsNamed(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->plottableCount(); ++i)
    if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i)); bars && bars->name() == name) return bars;
  return nullptr;
}

}  // namespace

// Fresh plots for each test.
struct Plots {
  QCustomPlot curve, util, memory, temperature, power, timing;
  DevicePlots devices() { return {&util, &memory, &temperature, &power, &timing}; }
};

class TestTrainingCharts : public QObject {
  Q_OBJECT

 private slots:
  void gpuSensorsGetTheirOwnLines() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    QSignalSpy arrived(&charts, &TrainingCharts::sensorDataArrived);
    for (int i = 1; i <= 3; ++i) charts.addIteration(iteration(i, {gpu("cuda:0", 40 + i, 100), gpu("cuda:1", 50, 120 + i)}), i);
    charts.flush();
    QCOMPARE(arrived.count(), 1);  // once per run, not per event
    QVERIFY(charts.hasSensorData());
    QCOMPARE(charts.temperaturePoints(), 6);
    QCOMPARE(charts.powerPoints(), 6);
    QCOMPARE(p.temperature.graphCount(), 2);
    QCOMPARE(p.temperature.graph(0)->name(), QString("cuda:0"));
    QCOMPARE(p.temperature.graph(0)->data()->at(2)->value, 43.0);
    QCOMPARE(p.power.graph(1)->data()->at(2)->value, 123.0);
    QVERIFY(p.temperature.yAxis->range().upper >= 50);

    // Step bars: compute and wait stacked, the hidden all-reduce beside them.
    QCPBars* hidden = barsNamed(&p.timing, "hidden all-reduce");
    QVERIFY(hidden);
    QCOMPARE(hidden->data()->size(), 2);
    QCOMPARE(hidden->data()->at(0)->value, 3.0);
    QCPBars* wait = barsNamed(&p.timing, "all-reduce wait");
    QVERIFY(wait && wait->barBelow() == barsNamed(&p.timing, "compute"));

    charts.clear();  // a new run: no sensors until a GPU reports them again
    QVERIFY(!charts.hasSensorData());
    QCOMPARE(charts.temperaturePoints(), 0);
  }

  void cpuWorkersHaveNoSensors() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    QSignalSpy arrived(&charts, &TrainingCharts::sensorDataArrived);
    DeviceSample cpu = gpu("cpu:0", kNoValue, kNoValue);
    charts.addIteration(iteration(1, {cpu}), 1);
    charts.flush();
    QCOMPARE(arrived.count(), 0);
    QVERIFY(!charts.hasSensorData());
    QCOMPARE(charts.utilizationPoints(), 1);
    QCOMPARE(charts.temperaturePoints(), 1);  // a point, but NaN: a gap, not a value
    QVERIFY(std::isnan(p.temperature.graph(0)->data()->at(0)->value));
  }

  // TensorBoard's debiased EMA: s_t = b s_{t-1} + (1-b) x_t from s_0 = 0, shown as s_t / (1 - b^t).
  // The first point is the first loss itself, and the line follows a falling loss closely instead of
  // lagging at the first value.
  void smoothedLossIsDebiased() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    const double losses[] = {10, 0, 0, 4, 2};
    for (int i = 0; i < 5; ++i) {
      IterationEvent e = iteration(i + 1, {});
      e.loss = losses[i];
      charts.addIteration(e, i + 1);
    }
    charts.flush();
    QCPGraph* smooth = nullptr;
    for (int i = 0; i < p.curve.graphCount(); ++i)
      if (p.curve.graph(i)->name() == "training loss (smoothed)") smooth = p.curve.graph(i);
    QVERIFY(smooth);
    QCOMPARE(smooth->data()->size(), 5);
    const double b = TrainingCharts::kSmoothing;
    double s = 0;
    for (int t = 1; t <= 5; ++t) {
      s = b * s + (1 - b) * losses[t - 1];
      const double shown = s / (1 - std::pow(b, t));
      QVERIFY2(std::abs(smooth->data()->at(t - 1)->value - shown) < 1e-9,
               qPrintable(QString("t=%1: %2, expected %3").arg(t).arg(smooth->data()->at(t - 1)->value).arg(shown)));
    }
    QCOMPARE(smooth->data()->at(0)->value, 10.0);
    QVERIFY(smooth->data()->at(1)->value < 6);  // the old EMA seeded with 10 showed 9
  }

  // The validation-error axis fits the errors seen (with a margin), within [0, 1].
  void validationErrorAxisFitsTheData() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    const double errors[] = {0.14, 0.11, 0.095};
    for (int i = 0; i < 3; ++i) {
      EpochEvent e;
      e.epoch = i + 1;
      e.trainLoss = 0.5 - 0.1 * i;
      e.validationLoss = 0.45 - 0.1 * i;
      e.validationError = errors[i];
      charts.addEpoch(e);
    }
    charts.flush();
    const QCPRange r = p.curve.yAxis2->range();
    QVERIFY2(r.lower <= 0.095 && r.upper >= 0.14, qPrintable(QString("%1 … %2").arg(r.lower).arg(r.upper)));
    QVERIFY2(r.lower >= 0 && r.upper <= 1, qPrintable(QString("%1 … %2").arg(r.lower).arg(r.upper)));
    QVERIFY2(r.size() < 0.3, qPrintable(QString("%1 … %2: not fitted").arg(r.lower).arg(r.upper)));
    // The margin keeps the points off the axis rect's edges.
    QVERIFY(r.lower < 0.095 && r.upper > 0.14);

    // Errors near 0 and 1 stay within [0, 1].
    Plots q;
    TrainingCharts edges(&q.curve, q.devices());
    for (int i = 0; i < 2; ++i) {
      EpochEvent e;
      e.epoch = i + 1;
      e.validationError = i == 0 ? 0.999 : 0.001;
      edges.addEpoch(e);
    }
    edges.flush();
    QCOMPARE(q.curve.yAxis2->range().lower, 0.0);
    QCOMPARE(q.curve.yAxis2->range().upper, 1.0);
  }

  // A pause (a long gap between samples) breaks the utilization and memory lines: a NaN point
  // between the two sides, so no diagonal is drawn across the time nothing was measured.
  void pauseBreaksDeviceLines() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    const double times[] = {1, 1.5, 2, 2.5, 3, 63, 63.5, 64};
    for (int i = 0; i < 8; ++i) charts.addIteration(iteration(i + 1, {gpu("cuda:0", 50, 100)}), times[i]);
    charts.flush();
    QCPGraph* util = p.util.graph(0);
    QVERIFY(util);
    int gaps = 0;
    for (auto it = util->data()->constBegin(); it != util->data()->constEnd(); ++it) {
      if (!std::isnan(it->value)) continue;
      ++gaps;
      QVERIFY2(it->key > 3 && it->key < 63, qPrintable(QString::number(it->key)));
    }
    QCOMPARE(gaps, 1);
    int memoryGaps = 0;
    for (auto it = p.memory.graph(0)->data()->constBegin(); it != p.memory.graph(0)->data()->constEnd(); ++it)
      memoryGaps += std::isnan(it->value);
    QCOMPARE(memoryGaps, 1);
    // Regular samples do not break the line.
    Plots q;
    TrainingCharts steady(&q.curve, q.devices());
    for (int i = 0; i < 20; ++i) steady.addIteration(iteration(i + 1, {gpu("cuda:0", 50, 100)}), 1 + i * 0.5);
    steady.flush();
    for (auto it = q.util.graph(0)->data()->constBegin(); it != q.util.graph(0)->data()->constEnd(); ++it)
      QVERIFY(!std::isnan(it->value));
  }

  // Legends sit in a row of their own above the axes, never over the data.
  void legendsDoNotCoverTheData() {
    {
      // Before the first device the legend is empty: the axes still take the plot's whole width.
      Plots empty;
      TrainingCharts charts(&empty.curve, empty.devices());
      charts.flush();
      empty.util.resize(300, 200);
      empty.util.show();
      QVERIFY(QTest::qWaitForWindowExposed(&empty.util));
      empty.util.replot();
      QVERIFY2(empty.util.axisRect()->outerRect().width() >= 290, qPrintable(QString::number(empty.util.axisRect()->outerRect().width())));
    }
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    for (int i = 1; i <= 3; ++i) charts.addIteration(iteration(i, {gpu("cuda:0", 40, 100), gpu("cuda:1", 50, 120)}), i);
    charts.flush();
    for (QCustomPlot* plot : {&p.curve, &p.util, &p.memory, &p.timing}) {
      plot->resize(600, 400);
      plot->replot();
      QVERIFY(plot->legend->visible());
      // Not an inset of the axis rect, and no overlap with it.
      QVERIFY(plot->legend->layout() != plot->axisRect()->insetLayout());
      QVERIFY2(!plot->legend->outerRect().intersects(plot->axisRect()->rect()),
               qPrintable(QString("legend %1,%2 %3x%4").arg(plot->legend->outerRect().x()).arg(plot->legend->outerRect().y())
                              .arg(plot->legend->outerRect().width()).arg(plot->legend->outerRect().height())));
      QVERIFY(plot->legend->outerRect().bottom() <= plot->axisRect()->outerRect().top() + 1);
      // A narrow plot wraps the items into more rows (and asks for no more width than that).
      const int rowsWide = plot->legend->rowCount();
      plot->resize(240, 400);
      plot->replot();
      plot->replot();
      QVERIFY(plot->legend->rowCount() >= rowsWide);
      QVERIFY2(plot->legend->columnCount() * 100 <= 240, qPrintable(QString::number(plot->legend->columnCount())));
      const int minimumWidth = static_cast<QWidget*>(plot)->minimumSizeHint().width();
      QVERIFY2(minimumWidth < 240, qPrintable(QString::number(minimumWidth)));
      QVERIFY(!plot->legend->outerRect().intersects(plot->axisRect()->rect()));
    }
  }

  // Issue 27 item 4: overlaid runs get colours far apart from each other and from the current
  // run's lines (the first overlay was drawn in the validation loss's red, and the next ones in
  // purple, brown and pink), and ticking runs takes no height from the plot (the legend grew by
  // two entries per run and pushed the axes down).
  void overlaysAreDistinctAndKeepThePlotHeight() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    p.curve.resize(900, 380);
    for (int i = 1; i <= 10; ++i) charts.addIteration(iteration(i, {}), i);
    EpochEvent epoch;
    epoch.epoch = 1;
    epoch.trainLoss = 0.5;
    epoch.validationLoss = 0.6;
    epoch.validationError = 0.3;
    charts.addEpoch(epoch);
    charts.flush();
    p.curve.replot();
    p.curve.replot();
    const QRect before = p.curve.axisRect()->rect();
    QList<QColor> current;
    for (int i = 0; i < p.curve.graphCount(); ++i)
      if (!p.curve.graph(i)->data()->isEmpty()) current << p.curve.graph(i)->pen().color().toRgb();
    QCOMPARE(current.size(), 5);

    QList<CurvePoints> runs;
    for (int r = 0; r < kOverlayColors; ++r) {
      CurvePoints c;
      c.label = QString("run %1").arg(r + 1);
      c.epoch = {1, 2};
      c.trainLoss = {0.9 - 0.05 * r, 0.5};
      c.validationError = {0.3, 0.2 + 0.01 * r};
      runs << c;
    }
    charts.setOverlays(runs);
    p.curve.replot();
    p.curve.replot();
    QCOMPARE(p.curve.axisRect()->rect(), before);

    QList<QColor> overlays;
    for (const CurvePoints& run : runs) {
      QColor train, error;
      for (int i = 0; i < p.curve.graphCount(); ++i) {
        if (p.curve.graph(i)->name() == run.label + " training loss") train = p.curve.graph(i)->pen().color();
        if (p.curve.graph(i)->name() == run.label + " validation error") error = p.curve.graph(i)->pen().color();
      }
      QVERIFY2(train.isValid() && train == error, qPrintable(run.label));  // one colour per run
      overlays << train;
    }
    for (int a = 0; a < overlays.size(); ++a) {
      for (int b = a + 1; b < overlays.size(); ++b)
        QVERIFY2(colorDistance(overlays[a], overlays[b]) >= kMinOverlayDistance,
                 qPrintable(QString("overlays %1 and %2: %3").arg(overlays[a].name(), overlays[b].name()).arg(colorDistance(overlays[a], overlays[b]))));
      for (const QColor& c : current)
        QVERIFY2(colorDistance(overlays[a], c) >= kMinOverlayDistance,
                 qPrintable(QString("overlay %1 and the current run's %2: %3").arg(overlays[a].name(), c.name()).arg(colorDistance(overlays[a], c))));
    }
    // The legend keys the overlays' two line styles once, not per run; the runs' lines keep their
    // names for the CSV export.
    QCOMPARE(legendEntries(p.curve), 7);
    QVERIFY(chartCsv(&p.curve).contains(runs[3].label + " training loss,1,"));
    // Untick all: the keys go, and the axes stay where they were.
    charts.setOverlays({});
    p.curve.replot();
    p.curve.replot();
    QCOMPARE(legendEntries(p.curve), 5);
    QCOMPARE(p.curve.axisRect()->rect(), before);
  }

  // The history overlays read learning_curve.csv through engine/protocol's reader: columns by
  // name, empty cells as no value; a damaged file draws no line and the legend says why.
  void learningCurveFileIsReadByTheProtocol() {
    QTemporaryDir dir;
    auto write = [&](const QByteArray& text) {
      QFile f(dir.filePath("learning_curve.csv"));
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(text);
    };
    write("epoch,train_loss,validation_loss,validation_error,seconds,learning_rate\n1,0.5,0.4,0.2,1,0.01\n2,0.3,,,1,0.01\n");
    CurvePoints c = readLearningCurve(dir.path());
    QCOMPARE(c.epoch, (QVector<double>{1, 2}));
    QCOMPARE(c.trainLoss[1], 0.3);
    QCOMPARE(c.validationError[0], 0.2);
    QVERIFY(qIsNaN(c.validationError[1]));
    write("epoch,train_loss\n1,abc\n");
    c = readLearningCurve(dir.path());
    QVERIFY(c.epoch.isEmpty());
    QVERIFY2(c.label.endsWith("(learning_curve.csv is damaged)"), qPrintable(c.label));
  }
};

QTEST_MAIN(TestTrainingCharts)
#include "tst_training_charts.moc"
