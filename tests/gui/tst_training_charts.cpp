// The Training page's per-device charts fed directly with events: a GPU's temperature and power
// (NVML) get lines of their own and announce themselves once; CPU workers have none; the step
// bars show the all-reduce time hidden behind backward next to compute + wait.
#include <qcustomplot.h>
#include <QSignalSpy>
#include <QtTest>

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
    QCPBars* hidden = barsNamed(&p.timing, "all-reduce hidden behind backward");
    QVERIFY(hidden);
    QCOMPARE(hidden->data()->size(), 2);
    QCOMPARE(hidden->data()->at(0)->value, 3.0);
    QCPBars* wait = barsNamed(&p.timing, "waiting for all-reduce");
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
};

QTEST_MAIN(TestTrainingCharts)
#include "tst_training_charts.moc"
