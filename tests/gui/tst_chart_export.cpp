// The charts' right-click menu (chart_export.h) and zoom on the Training page's charts: the CSV of a
// chart holds a header and exactly the points of its lines and bars (gaps left out, devices by
// name), the PNG is the plot at its size, the menu offers both and Reset zoom, and a zoomed chart
// keeps its ranges as points arrive until Reset zoom fits it again.
#include <qcustomplot.h>

#include <QMenu>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/training/chart_export.h"
#include "gui/training/training_charts.h"

using namespace netsmith::gui;

namespace {

struct Plots {
  QCustomPlot curve, util, memory, temperature, power, timing;
  DevicePlots devices() { return {&util, &memory, &temperature, &power, &timing}; }
};

DeviceSample device(const QString& id, double computeMs) {
  DeviceSample d;
  d.id = id;
  d.computeMs = computeMs;
  d.syncMs = 2;
  d.overlapMs = 1;
  d.waitMs = 1;
  d.utilization = 0.5;
  d.memoryMb = 300;
  return d;
}

void feed(TrainingCharts& charts, int epochs) {
  for (int i = 1; i <= 10 * epochs; ++i) {
    IterationEvent e;
    e.epoch = (i - 1) / 10 + 1;
    e.iteration = i;
    e.iterationsPerEpoch = 10;
    e.loss = 2.0 / i;
    e.devices = {device("cpu:0", 10), device("cpu:1", 12)};
    charts.addIteration(e, 0.5 * i);
  }
  for (int k = 1; k <= epochs; ++k) {
    EpochEvent e;
    e.epoch = k;
    e.trainLoss = 1.0 / k;
    e.validationLoss = 1.2 / k;
    e.validationError = k == 1 ? 0.4 : 0.25;
    charts.addEpoch(e);
  }
  charts.flush();
}

QStringList rowsOf(const QString& csv, const QString& series) {
  QStringList out;
  for (const QString& line : csv.split('\n', Qt::SkipEmptyParts))
    if (line.startsWith(series + ",")) out << line;
  return out;
}

}  // namespace

class TestChartExport : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void csvHoldsTheChartsData() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    feed(charts, 2);
    const QString csv = chartCsv(&p.curve);
    const QStringList lines = csv.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QString("series,x,y"));
    int points = 0;
    for (int i = 0; i < p.curve.graphCount(); ++i)
      for (const QCPGraphData& d : *p.curve.graph(i)->data()) points += std::isnan(d.value) ? 0 : 1;
    QCOMPARE(lines.size(), 1 + points);
    QCOMPARE(rowsOf(csv, "training loss (iteration)").size(), 20);
    // The iteration loss at its x (iteration 4 of 10 per epoch is epoch 0.4), as the graph holds it.
    const QCPGraphData fourth = *(p.curve.graph(0)->data()->begin() + 3);
    QVERIFY(rowsOf(csv, "training loss (iteration)").contains(QString("training loss (iteration),%1,%2")
                                                                 .arg(QString::number(fourth.key, 'g', 10), QString::number(fourth.value, 'g', 10))));
    QCOMPARE(fourth.value, 0.5);
    QCOMPARE(rowsOf(csv, "validation error (right axis)"), (QStringList{"validation error (right axis),1,0.4",
                                                                       "validation error (right axis),2,0.25"}));
    QCOMPARE(rowsOf(csv, "validation loss"), (QStringList{"validation loss,1,1.2", "validation loss,2,0.6"}));

    // Bars: one row per device, named by its tick label.
    const QString timing = chartCsv(&p.timing);
    QCOMPARE(rowsOf(timing, "compute"), (QStringList{"compute,cpu:0,10", "compute,cpu:1,12"}));
    // A line break at a pause (NaN) is not a point.
    charts.markPause();
    feed(charts, 1);
    const QString util = chartCsv(&p.util);
    QVERIFY(!util.contains("nan", Qt::CaseInsensitive));
    QCOMPARE(rowsOf(util, "cpu:0").size(), 30);

    const QString file = m_dir.filePath("curve.csv");
    QString why;
    QVERIFY2(saveChartCsv(&p.curve, file, &why), qPrintable(why));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), chartCsv(&p.curve));
  }

  void pngAtThePlotsSize() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    feed(charts, 2);
    p.curve.resize(640, 360);
    const QString file = m_dir.filePath("curve.png");
    QString why;
    QVERIFY2(saveChartPng(&p.curve, file, &why), qPrintable(why));
    QVERIFY(QFileInfo(file).size() > 1000);
    const QImage image(file);
    QCOMPARE(image.size(), QSize(640, 360));
    QSet<QRgb> colours;
    for (int x = 0; x < image.width(); x += 4)
      for (int y = 0; y < image.height(); y += 4) colours.insert(image.pixel(x, y));
    QVERIFY(colours.size() > 3);  // axes, lines, text: not a blank picture
    QVERIFY(!saveChartPng(&p.curve, m_dir.filePath("no/such/folder/x.png"), &why));
    QVERIFY(why.contains("no/such/folder"));
  }

  void menuAndZoom() {
    Plots p;
    TrainingCharts charts(&p.curve, p.devices());
    feed(charts, 2);
    p.curve.resize(640, 360);
    p.curve.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p.curve));
    emit p.curve.customContextMenuRequested(QPoint(20, 20));
    auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
    QVERIFY(menu);
    QStringList names;
    for (QAction* a : menu->actions()) names << a->objectName();
    QVERIFY(names.contains("exportChartPng") && names.contains("exportChartCsv") && names.contains("resetZoom"));
    menu->close();

    // Wheel over the plot: zoomed; new epochs no longer move the axes.
    const double fitted = p.curve.xAxis->range().upper;  // the furthest epoch, rounded up
    const QPointF at(p.curve.axisRect()->center());
    QWheelEvent wheel(at, p.curve.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&p.curve, &wheel);
    QVERIFY(charts.isZoomed(&p.curve));
    const QCPRange zoomed = p.curve.xAxis->range();
    QVERIFY(zoomed.size() < fitted);
    feed(charts, 3);
    QCOMPARE(p.curve.xAxis->range(), zoomed);
    // Reset zoom (the menu's action): fitted to the data again, and following it.
    emit p.curve.customContextMenuRequested(QPoint(20, 20));
    menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
    QVERIFY(menu);
    for (QAction* a : menu->actions())
      if (a->objectName() == "resetZoom") a->trigger();
    menu->close();
    QVERIFY(!charts.isZoomed(&p.curve));
    QCOMPARE(p.curve.xAxis->range().lower, 0.0);
    QVERIFY(p.curve.xAxis->range().upper > fitted);  // the third epoch is in view
    double maxKey = 0;
    for (int i = 0; i < p.curve.graphCount(); ++i)
      for (const QCPGraphData& d : *p.curve.graph(i)->data()) maxKey = std::max(maxKey, d.key);
    QCOMPARE(p.curve.xAxis->range().upper, std::ceil(maxKey));
  }
};

QTEST_MAIN(TestChartExport)
#include "tst_chart_export.moc"
