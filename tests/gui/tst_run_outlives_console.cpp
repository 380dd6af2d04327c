// Note [The run outlives its console]: a run the console started goes on when the console is
// killed (kill -9: no destructor, no question asked) or closed with "Keep training"; a console
// opened on the project again follows it from its run folder, shows it as running (its curve so
// far included) and stops it with a checkpoint, after which ⟳ Resume run continues it.
//
// The killed console is this test's own executable started again with --console-child: a
// TrainingPage on the project that starts a run and writes the run folder's path to a file once
// the first iteration arrived, then waits to be killed.
#include <QApplication>
#include <QFile>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/train/run_folder.h"
#include "gui/training/training_charts.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

const QStringList kLongRun = {"--max-epoch", "4", "--train-samples", "20000", "--validation-samples", "256"};

bool inUse(const QString& folder) { return runFolderInUse(folder.toStdString()); }

int consoleChild(const QString& project, const QString& readyFile) {
  ProjectDocument doc;
  doc.load(project);
  TrainingPage page(&doc);
  page.setExtraArguments(kLongRun);
  if (!page.start()) return 2;
  QObject::connect(page.engine(), &EngineProcess::eventReceived, [&](const EngineEvent& event) {
    if (!std::holds_alternative<IterationEvent>(event)) return;
    QFile ready(readyFile);
    if (!ready.exists() && ready.open(QIODevice::WriteOnly)) ready.write(page.currentRunFolder().toUtf8());
  });
  return QApplication::exec();
}

}  // namespace

class TestRunOutlivesConsole : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

  // A page on the project follows the run in `folder`, sees it train on, stops it, and can resume it.
  void followStopAndResume(const QString& folder) {
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);  // opening the project finds the run in its history and follows it
    QVERIFY2(page.isFollowing(), qPrintable(page.statusText()));
    QVERIFY(page.isRunning());
    QCOMPARE(page.currentRunFolder(), folder);
    QVERIFY2(page.statusText().contains("Following"), qPrintable(page.statusText()));
    auto* pause = page.findChild<QPushButton*>("pauseButton");
    QVERIFY(pause && !pause->isEnabled());  // its standard input is not this console's
    // The curve so far came from events.jsonl; new iterations keep arriving.
    page.charts()->flush();
    QVERIFY(page.charts()->iterationPoints() > 0);
    QVERIFY2(QTest::qWaitFor([&] { return page.iterationEvents() > 0; }, 60000), qPrintable(page.logText()));
    page.stop();
    QCOMPARE(page.state(), TrainingPage::State::Stopping);
    QVERIFY(QTest::qWaitFor([&] { return !page.isRunning(); }, 60000));
    QVERIFY2(page.lastOutcome() && page.lastOutcome()->status == RunOutcome::Status::Stopped,
             qPrintable(page.statusText() + "\n" + page.logText()));
    QVERIFY(!inUse(folder));
    QVERIFY(page.canResumeLastRun());
    QVERIFY(QDir(folder + "/checkpoints").entryList({"*.ckpt"}, QDir::Files).size() > 0);
  }

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    m_project = m_dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj", m_project));
  }

  void aKilledConsoleLeavesTheRunTraining() {
    const QString ready = m_dir.filePath("ready");
    QProcess console;
    console.setProcessChannelMode(QProcess::ForwardedChannels);
    console.start(QCoreApplication::applicationFilePath(), {"--console-child", m_project, ready});
    QVERIFY(console.waitForStarted());
    QVERIFY2(QTest::qWaitFor([&] { return QFile::exists(ready) && QFileInfo(ready).size() > 0; }, 120000),
             "the console child did not start its run");
    QFile f(ready);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString folder = QString::fromUtf8(f.readAll());
    QVERIFY(inUse(folder));
    console.kill();  // SIGKILL: nothing of the console runs any more
    QVERIFY(console.waitForFinished(10000));
    // The engine wrote to the console's pipe at every iteration: before, the first write after
    // the kill ended it by SIGPIPE, with no checkpoint.
    const qint64 eventsBefore = QFileInfo(folder + "/events.jsonl").size();
    QTest::qWait(1500);
    QVERIFY2(inUse(folder), "the engine ended with its console");
    QVERIFY(QTest::qWaitFor([&] { return QFileInfo(folder + "/events.jsonl").size() > eventsBefore; }, 30000));
    followStopAndResume(folder);
  }

  void keepTrainingOnCloseLeavesTheRunTraining() {
    QString folder;
    {
      ProjectDocument doc;
      doc.load(m_project);
      TrainingPage page(&doc);
      QVERIFY(!page.isFollowing());  // the run above was stopped: nothing to follow
      page.setExtraArguments(kLongRun);
      QVERIFY(page.start());
      folder = page.currentRunFolder();
      QVERIFY(QTest::qWaitFor([&] { return page.iterationEvents() > 0; }, 120000));
      page.leaveRunToItself(false);  // the window closes with "Keep training"
      QVERIFY(!page.isRunning());
    }
    QTest::qWait(1500);
    QVERIFY2(inUse(folder), "the engine ended with its page");
    followStopAndResume(folder);
  }
};

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const QStringList args = app.arguments();
  if (args.size() == 4 && args[1] == "--console-child") return consoleChild(args[2], args[3]);
  TestRunOutlivesConsole test;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&test, argc, argv);
}

#include "tst_run_outlives_console.moc"
