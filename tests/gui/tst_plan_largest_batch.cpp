// Note [Memory before launch] in the console: on a simulated GPU of 1 GiB the Training page's plan
// shows cuda:0's memory and its parts, and the "largest batch" button sets config.batch_size to
// the largest batch the plan says fits, as one undo step; the plan made again then offers nothing
// more, and a batch that does not fit shows the need in red with the warning.
#include <QPushButton>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "engine/project/project_io.h"
#include "gui/app/main_window.h"
#include "gui/document/project_document.h"
#include "gui/training/plan_box.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestPlanLargestBatch : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  QString lenetOnGpu(int64_t batch) {
    Project p = loadProject(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    p.parallel.devices = {"cuda:0"};
    p.config.batchSize = batch;
    const QString path = m_dir.filePath(QString("lenet%1.nsproj").arg(batch));
    saveProject(p, path.toStdString());
    return path;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    qputenv("NETSMITH_SIMULATED_GPUS", "1");
    qputenv("NETSMITH_SIMULATED_GPU_MEMORY_MB", "1024");
  }

  void buttonSetsTheLargestBatchUndoably() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openProject(lenetOnGpu(8192)));
    window.showPage("training");
    TrainingPage* training = window.trainingPage();
    auto* plan = training->findChild<PlanBox*>();
    auto* button = training->findChild<QPushButton*>("largestBatch");
    QVERIFY(plan && button);
    QTRY_VERIFY2_WITH_TIMEOUT(training->planText().contains("Memory cuda:0") && !training->planText().contains("updating"),
                              qPrintable(training->planText()), 30000);
    // 8192 does not fit: the need in red, the warning, and the button with the batch that fits.
    QVERIFY(training->planText().contains("color:#c0392b"));
    QVERIFY(training->planText().contains("will not fit in memory"));
    QVERIFY(training->planText().contains("CUDA context"));
    QVERIFY(button->isVisible());
    const int64_t largest = plan->largestBatchSize();
    QVERIFY2(largest > 64 && largest < 8192, qPrintable(QString::number(largest)));
    QVERIFY(button->text().contains(QLocale().toString(largest)));
    // docs/screenshots/plan-memory.png: NETSMITH_PLAN_SCREENSHOT=FILE (under Xvfb, QT_QPA_PLATFORM=xcb).
    if (const QString shot = qEnvironmentVariable("NETSMITH_PLAN_SCREENSHOT"); !shot.isEmpty()) {
      QTest::qWait(300);
      QVERIFY(window.grab().save(shot));
    }

    const int steps = window.document()->undoStack()->count();
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(window.document()->settings().config.batchSize, largest);
    QCOMPARE(window.document()->undoStack()->count(), steps + 1);
    QTRY_VERIFY2_WITH_TIMEOUT(!training->planText().contains("updating") &&
                                  training->planText().contains(QString("batch size %1").arg(largest)),
                              qPrintable(training->planText()), 30000);
    QVERIFY(!training->planText().contains("will not fit in memory"));
    QVERIFY(button->isHidden());  // the batch is the largest already

    window.document()->undoStack()->undo();
    QCOMPARE(window.document()->settings().config.batchSize, int64_t{8192});
  }
};

QTEST_MAIN(TestPlanLargestBatch)
#include "tst_plan_largest_batch.moc"
