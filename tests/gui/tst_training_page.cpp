// End to end: the Training page drives a real `netsmith-cli train --events -` on the LeNet sample
// with 2 CPU workers. Charts receive points; pause, resume and stop work; killing the engine shows
// the run as failed with the signal and leaves the document untouched; runs appear in history.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/training/device_table.h"
#include "gui/training/training_charts.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {
bool waitFor(const std::function<bool()>& condition, int timeoutMs) {
  QDeadlineTimer deadline(timeoutMs);
  while (!condition()) {
    if (deadline.hasExpired()) return false;
    QTest::qWait(20);
  }
  return true;
}
}  // namespace

class TestTrainingPage : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    m_project = m_dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj", m_project));
  }

  void planAndDevicesFromTheEngine() {
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);
    QSignalSpy devices(&page, &TrainingPage::devicesUpdated);
    QVERIFY(devices.wait(30000));
    page.deviceTable()->setChecked("cpu:1", true);  // the user ticks a second worker
    QCOMPARE(doc.settings().parallel.devices, (std::vector<std::string>{"cpu:0", "cpu:1"}));
    QVERIFY(doc.isModified());
    QSignalSpy plan(&page, &TrainingPage::planUpdated);
    page.refreshPlan();
    QVERIFY(plan.wait(30000));
    QVERIFY2(page.planText().contains("Logical batch"), qPrintable(page.planText()));
    QVERIFY2(page.planText().contains("<b>128</b>"), qPrintable(page.planText()));  // 64 × 2 workers
    doc.undoStack()->undo();
    QCOMPARE(doc.settings().parallel.devices, (std::vector<std::string>{"cpu:0"}));
  }

  void shortRealRunFillsChartsAndHistory() {
    ProjectDocument doc;
    doc.load(m_project);
    Project two = doc.settings();
    two.parallel.devices = {"cpu:0", "cpu:1"};
    doc.undoStack()->push(new SettingsCommand(&doc, doc.settings(), two, "parallel.devices"));
    TrainingPage page(&doc);
    page.setExtraArguments({"--max-epoch", "1", "--train-samples", "512", "--validation-samples", "256"});
    QVERIFY(page.start());
    QVERIFY(waitFor([&] { return !page.isRunning(); }, 240000));
    QVERIFY2(page.lastOutcome() && page.lastOutcome()->status == RunOutcome::Status::Completed,
             qPrintable(page.statusText() + "\n" + page.logText()));
    QVERIFY(page.iterationEvents() > 0);
    QCOMPARE(page.epochEvents(), 1);
    QVERIFY(page.sawFinishedEvent());
    page.charts()->flush();
    QVERIFY(page.charts()->iterationPoints() > 0);
    QCOMPARE(page.charts()->epochPoints(), 1);
    QVERIFY(page.charts()->utilizationPoints() > 0);
    QCOMPARE(page.charts()->timingDevices(), 2);  // one bar per worker
    QVERIFY(page.statusText().contains("completed"));
    QCOMPARE(page.history().size(), 1);
    QCOMPARE(page.history()[0].status, QString("completed"));
    QVERIFY(QFile::exists(page.currentRunFolder() + "/learning_curve.csv"));
    QVERIFY(page.currentRunFolder().startsWith(m_dir.filePath("lenet.runs")));
  }

  void pauseResumeStop() {
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);
    page.setExtraArguments({"--max-epoch", "3", "--train-samples", "20000", "--validation-samples", "256"});
    QVERIFY(page.start());
    QVERIFY2(waitFor([&] { return page.iterationEvents() > 0; }, 120000), qPrintable(page.logText()));
    page.pause();
    QVERIFY2(waitFor([&] { return page.state() == TrainingPage::State::Paused; }, 30000), qPrintable(page.logText()));
    const int seen = page.iterationEvents();
    QTest::qWait(300);
    QCOMPARE(page.iterationEvents(), seen);  // nothing trains while paused
    page.resume();
    QVERIFY(waitFor([&] { return page.state() == TrainingPage::State::Running; }, 30000));
    page.stop();
    QVERIFY(waitFor([&] { return !page.isRunning(); }, 60000));
    QVERIFY2(page.lastOutcome()->status == RunOutcome::Status::Stopped, qPrintable(page.statusText()));
    QVERIFY(page.statusText().contains("--resume"));
    QVERIFY(page.history().size() >= 1);
    QCOMPARE(page.history()[0].status, QString("stopped"));
  }

  void killedEngineIsAFailedRunAndTheDocumentIsUntouched() {
    ProjectDocument doc;
    doc.load(m_project);
    doc.undoStack()->push(new SettingsCommand(&doc, doc.settings(), doc.settings(), "name"));  // unsaved work
    const std::string before = doc.toText();
    TrainingPage page(&doc);
    page.setExtraArguments({"--max-epoch", "5", "--train-samples", "20000", "--validation-samples", "256"});
    QVERIFY(page.start());
    QVERIFY(waitFor([&] { return page.iterationEvents() > 0; }, 120000));
    page.engine()->kill();
    QVERIFY(waitFor([&] { return !page.isRunning(); }, 30000));
    QCOMPARE(page.lastOutcome()->status, RunOutcome::Status::Failed);
    QVERIFY(page.lastOutcome()->crashed);
    QVERIFY2(page.statusText().contains("signal 9") && page.statusText().contains("SIGKILL"), qPrintable(page.statusText()));
    QVERIFY(page.logText().contains("SIGKILL"));  // the log is kept
    QCOMPARE(doc.toText(), before);
    QVERIFY(doc.isModified());
    QCOMPARE(page.history()[0].status, QString("interrupted"));
  }

  void invalidNetworkDoesNotStart() {
    ProjectDocument doc;
    doc.newProject();
    TrainingPage page(&doc);
    QVERIFY(!page.start());
    QVERIFY(page.statusText().contains("problem"));
    QVERIFY(!page.isRunning());
  }
};

QTEST_MAIN(TestTrainingPage)
#include "tst_training_page.moc"
