// Monitoring fits a 1366×768 screen (issue 27 item 3; Note [Training page layout]): in a real
// MainWindow of 1366×740, during a run on GPUs, every device chart is tall enough that its labels
// stand apart; the scaling verdict wraps and shows all of it; the device table shows every row of
// four GPUs and the CPU workers, the GPUs first, and its Name column stays readable once a run
// adds the "Data ms" column; the run history shows each ticked run's overlay colour.
#include <qcustomplot.h>

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/run/engine_process.h"
#include "gui/training/chart_colors.h"
#include "gui/training/device_table.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/training_charts.h"
#include "gui/training/training_page.h"
#include "support/laptop_window.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

DeviceSample gpuSample(const QString& id, int i) {
  DeviceSample d;
  d.id = id;
  d.computeMs = 10 + i;
  d.syncMs = 4;
  d.overlapMs = 3;
  d.waitMs = 1;
  d.dataMs = 2.5;
  d.utilization = 0.7 + 0.01 * i;
  d.memoryMb = 812 + 10 * i;
  d.temperatureC = 55 + i;
  d.powerW = 210 + i;
  return d;
}

// A run on two GPUs as the engine reports it: iterations with every device figure NVML gives.
void feedGpuRun(TrainingCharts* charts) {
  for (int i = 1; i <= 40; ++i) {
    IterationEvent e;
    e.epoch = 1 + (i - 1) / 20;
    e.iteration = 1 + (i - 1) % 20;
    e.iterationsPerEpoch = 20;
    e.loss = 2.0 / i;
    e.devices = {gpuSample("cuda:0", i), gpuSample("cuda:1", i)};
    charts->addIteration(e, 0.5 * i);
  }
  charts->flush();
}

QScrollArea* scrollAreaOf(QWidget* page) {
  for (QWidget* p = page->parentWidget(); p; p = p->parentWidget())
    if (auto* area = qobject_cast<QScrollArea*>(p)) return area;
  return nullptr;
}

// Why `plot`'s labels would overlap, or "": the tick labels of each axis a line (y) or their own
// width (x) apart, and each axis's title no longer than the axis.
QString labelClash(QCustomPlot* plot) {
  QStringList why;
  const QRect rect = plot->axisRect()->rect();
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis, plot->yAxis2}) {
    if (!axis->visible()) continue;
    const bool vertical = axis->orientation() == Qt::Vertical;
    const QFontMetrics ticks(axis->tickLabelFont());
    const QVector<double> at = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    for (int i = 1; i < at.size(); ++i) {
      const double apart = std::abs(axis->coordToPixel(at[i]) - axis->coordToPixel(at[i - 1]));
      const double needed = vertical ? ticks.height()
                                     : (ticks.horizontalAdvance(labels[i]) + ticks.horizontalAdvance(labels[i - 1])) / 2.0 + 2;
      if (apart < needed)
        why << QString("%1 ticks '%2' and '%3' %4 px apart, need %5").arg(axis->label(), labels[i - 1], labels[i]).arg(apart).arg(needed);
    }
    const int title = QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label());
    const int length = vertical ? rect.height() : rect.width();
    if (title > length) why << QString("title '%1' is %2 px on an axis of %3 px").arg(axis->label()).arg(title).arg(length);
  }
  return why.join("; ");
}

}  // namespace

class TestTrainingLayout : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() { test::useOwnSettings("tst_training_layout"); }

  // The device charts at 1366×740 during a GPU run: each tab's charts are at least
  // kDeviceChartMinimumHeight tall, with axes tall enough for their titles and tick labels that
  // do not overlap (they were about 70 px, five in a grid); the learning curve too; no scrolling.
  void deviceChartsHaveRoomAt1366x768() {
    auto w = test::laptopWindow("training");
    QVERIFY(w);
    TrainingPage* page = w->trainingPage();
    feedGpuRun(page->charts());
    auto* tabs = page->findChild<QTabWidget*>("deviceChartTabs");
    QVERIFY(tabs);
    QStringList seen;
    for (int t = 0; t < tabs->count(); ++t) {
      QVERIFY2(tabs->isTabVisible(t), qPrintable(tabs->tabText(t)));  // GPUs report temperature and power
      tabs->setCurrentIndex(t);
      QTest::qWait(20);
      for (QCustomPlot* plot : tabs->widget(t)->findChildren<QCustomPlot*>()) {
        QVERIFY(plot->isVisible());
        plot->replot();
        plot->replot();  // the second with the ticks and legend fitted to the first's layout
        const QString name = plot->objectName();
        seen << name;
        QVERIFY2(plot->height() >= TrainingPage::kDeviceChartMinimumHeight,
                 qPrintable(QString("%1: %2 px tall").arg(name).arg(plot->height())));
        QVERIFY2(plot->axisRect()->rect().height() >= 100,
                 qPrintable(QString("%1: axes %2 px tall").arg(name).arg(plot->axisRect()->rect().height())));
        const QString clash = labelClash(plot);
        QVERIFY2(clash.isEmpty(), qPrintable(name + ": " + clash));
      }
    }
    seen.sort();
    QCOMPARE(seen, (QStringList{"memoryPlot", "powerPlot", "stepTimePlot", "temperaturePlot", "utilizationPlot"}));
    auto* curve = page->findChild<QCustomPlot*>("learningCurvePlot");
    curve->replot();
    curve->replot();
    QVERIFY2(curve->axisRect()->rect().height() >= 150, qPrintable(QString::number(curve->axisRect()->rect().height())));
    QVERIFY2(labelClash(curve).isEmpty(), qPrintable(labelClash(curve)));
    QScrollArea* area = scrollAreaOf(page);
    QVERIFY(area);
    QCOMPARE(area->verticalScrollBar()->maximum(), 0);

    // A new run hides the temperature and power tab until a GPU reports them again.
    page->charts()->clear();
    QVERIFY(!tabs->isTabVisible(2));
  }

  // The scaling verdict after a run on two GPUs is about three lines at 1366 px: the status line
  // shows every word of it (it was cut after two lines, "…to co…"), and the page still needs no
  // scrolling.
  void scalingVerdictWrapsAndShowsAllOfIt() {
    auto w = test::laptopWindow("training");
    QVERIFY(w);
    TrainingPage* page = w->trainingPage();
    FinishedEvent finished;
    finished.status = "completed";
    finished.scalingVerdict =
        "2 GPUs: about 1.83× one GPU's samples/s (92%, estimated from the devices' compute time: no single-GPU run of "
        "this project to compare with); all-reduce 12% of the step, 70% of it hidden behind the backward pass";
    emit page->engine()->eventReceived(EngineEvent(finished));
    RunOutcome outcome;
    outcome.status = RunOutcome::Status::Completed;
    emit page->engine()->finished(outcome);
    QTest::qWait(50);
    auto* status = page->findChild<QLabel*>("trainingStatus");
    QVERIFY(status);
    QVERIFY2(page->statusText().contains(finished.scalingVerdict), qPrintable(page->statusText()));
    const QString shown = status->text();
    QVERIFY2(!shown.contains(QStringLiteral("…")), qPrintable(shown));
    QCOMPARE(QString(shown).remove(QRegularExpression("\\s")), page->statusText().remove(QRegularExpression("\\s")));
    const int lines = shown.count('\n') + 1;
    QVERIFY2(lines >= 3, qPrintable(shown));
    QVERIFY2(status->height() >= lines * status->fontMetrics().lineSpacing(),
             qPrintable(QString("%1 lines in %2 px").arg(lines).arg(status->height())));
    const QRect placed(status->mapTo(page, QPoint(0, 0)), status->size());
    QVERIFY(page->rect().contains(placed));
    QCOMPARE(scrollAreaOf(page)->verticalScrollBar()->maximum(), 0);
  }

  // Four GPUs and two CPU workers: every row is in view without scrolling, the GPUs first; after
  // a run adds the "Data ms" column the Name column still shows the names (it was cut to "lam…")
  // and the table needs no horizontal scrolling. The project keeps the engine's order.
  void deviceTableShowsEveryRowAndReadableNames() {
    auto w = test::laptopWindow("training");
    QVERIFY(w);
    TrainingPage* page = w->trainingPage();
    QSignalSpy listed(page, &TrainingPage::devicesUpdated);
    // The engine's own list first, so that it does not replace ours. Asked again here: the
    // window's own query (`devices --json`, about 50 ms) can end before the spy exists.
    page->refreshDevices();
    QVERIFY(listed.wait(30000));
    std::vector<DeviceInfo> devices;
    for (int i = 0; i < 2; ++i)
      devices.push_back({"cpu:" + std::to_string(i), "cpu", "AMD EPYC 7763 64-Core Processor", 515000, "", 2, ""});
    for (int i = 0; i < 4; ++i)
      devices.push_back({"cuda:" + std::to_string(i), "cuda", "NVIDIA H100 80GB HBM3", 81559,
                         "00000000:" + std::to_string(41 + i) + ":00.0", 0, "550.54"});
    DeviceTable* table = page->deviceTable();
    table->setDevices(devices);
    QTest::qWait(50);
    QCOMPARE(table->rowCount(), 6);
    QCOMPARE(table->item(0, 0)->text(), QString("cuda:0"));
    QCOMPARE(table->item(4, 0)->text(), QString("cpu:0"));
    const auto allRowsShown = [&] {
      QStringList hidden;
      for (int r = 0; r < table->rowCount(); ++r) {
        const QRect row = table->visualRect(table->model()->index(r, 1));
        if (!table->viewport()->rect().contains(row)) hidden << table->item(r, 0)->text();
      }
      if (table->verticalScrollBar()->maximum() > 0) hidden << "(scrolls)";
      return hidden.join(", ");
    };
    QVERIFY2(allRowsShown().isEmpty(), qPrintable(allRowsShown() + QString(" not in view; table %1 px tall").arg(table->height())));
    const QRect shown(table->mapTo(page, QPoint(0, 0)), table->size());
    QVERIFY(page->rect().contains(shown));

    // Ticked in the table's order, kept in the engine's.
    table->setChecked("cuda:1", true);
    table->setChecked("cpu:0", true);
    QCOMPARE(table->checkedDevices(), (std::vector<std::string>{"cpu:0", "cuda:1"}));

    // A run's figures: the "Data ms" column appears, and the table keeps its width (the
    // splitter beside it does not move when a run starts).
    const int widthBefore = table->width();
    QList<DeviceSample> figures;
    for (int i = 0; i < 4; ++i) figures << gpuSample(QString("cuda:%1").arg(i), i);
    table->showFigures(figures);
    QTest::qWait(50);
    QVERIFY(!table->dataText("cuda:0").isEmpty());
    const int readable = std::min(table->nameWidthNeeded(), int(DeviceTable::kMinNameWidth));
    QVERIFY2(table->nameColumnWidth() >= readable,
             qPrintable(QString("Name column %1 px, needs %2").arg(table->nameColumnWidth()).arg(readable)));
    QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
    QCOMPARE(table->width(), widthBefore);
    QVERIFY2(allRowsShown().isEmpty(), qPrintable(allRowsShown()));
    QCOMPARE(scrollAreaOf(page)->verticalScrollBar()->maximum(), 0);
    QCOMPARE(scrollAreaOf(page)->horizontalScrollBar()->maximum(), 0);
  }

  // Each ticked run shows its overlay colour as a swatch in the history, the same colour its
  // lines have on the chart, and keeps it when another run is ticked.
  void historySwatchesAreTheOverlayColours() {
    const QString project = m_dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj", project));
    const QString runs = m_dir.filePath("lenet.runs");
    for (const char* name : {"20260101-090000", "20260101-100000", "20260101-110000"}) {
      QVERIFY(QDir().mkpath(runs + "/" + name));
      QFile events(runs + "/" + name + "/events.jsonl");
      QVERIFY(events.open(QIODevice::WriteOnly));
      events.write("{\"event\":\"started\",\"run\":\"x\",\"devices\":[]}\n"
                   "{\"event\":\"finished\",\"status\":\"completed\",\"best_validation_error\":0.2}\n");
      QFile curve(runs + "/" + name + "/learning_curve.csv");
      QVERIFY(curve.open(QIODevice::WriteOnly));
      curve.write("epoch,train_loss,validation_loss,validation_error\n1,0.9,0.8,0.3\n2,0.6,0.5,0.2\n");
    }
    auto w = test::laptopWindow("training", project);
    QVERIFY(w);
    TrainingPage* page = w->trainingPage();
    QListWidget* list = page->historyPanel()->list();
    QVERIFY(QTest::qWaitFor([&] { return list->count() == 3; }, 10000));
    auto* curve = page->findChild<QCustomPlot*>("learningCurvePlot");
    const auto swatchColor = [&](int row) {
      const QImage image = list->item(row)->icon().pixmap(16, 12).toImage();
      return QColor(image.pixel(8, 6));
    };
    const auto lineColor = [&](int row) {
      const QString label = page->history().at(row).displayName() + " training loss";
      for (int i = 0; i < curve->graphCount(); ++i)
        if (curve->graph(i)->name() == label) return curve->graph(i)->pen().color();
      return QColor();
    };
    list->item(2)->setCheckState(Qt::Checked);
    const QColor first = swatchColor(2);
    QCOMPARE(first, lineColor(2));
    list->item(0)->setCheckState(Qt::Checked);
    QCOMPARE(swatchColor(2), first);  // kept
    QCOMPARE(swatchColor(0), lineColor(0));
    QVERIFY(colorDistance(swatchColor(0), first) >= kMinOverlayDistance);
  }
};

QTEST_MAIN(TestTrainingLayout)
#include "tst_training_layout.moc"
