// End to end: the Training page with Cluster ticked runs `mpirun -np 2 netsmith-cli train` on this
// machine (one CPU worker per process), reads rank 0's events through mpirun, shows the job's
// devices under rank 0 and rank 1 and ends with a completed run in the history.
//
// It needs Open MPI's mpirun and a netsmith-cli built with MPI (the one that has the `sweep`
// command); otherwise it skips with the reason. NETSMITH_TEST_MPI_CLI=/path/to/netsmith-cli runs
// it with another engine (a branch's build) before that engine is merged.
#include <QTemporaryDir>
#include <QtTest>

#include "gui/run/cluster_launch.h"
#include "gui/training/job_device_tree.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestClusterTraining : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("NetsmithTest");
    QCoreApplication::setApplicationName("tst_cluster_training");
    const QString cli = qEnvironmentVariable("NETSMITH_TEST_MPI_CLI", NETSMITH_CLI);
    qputenv("NETSMITH_CLI", cli.toUtf8());
    if (currentLaunchHost().mpirun.isEmpty()) QSKIP("mpirun is not installed (Debian's openmpi-bin)");
    QProcess help;
    help.start(cli, {"--help"});
    QVERIFY2(help.waitForFinished(30000), qPrintable(cli));
    if (!help.readAllStandardOutput().contains("sweep"))
      QSKIP(qPrintable(cli + " has no MPI support yet (no 'sweep' command: the mpi branch is not merged); "
                             "set NETSMITH_TEST_MPI_CLI to an engine built with it"));
    m_project = m_dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj", m_project));
  }

  void twoProcessesOnThisMachine() {
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);
    ClusterSettings c;
    c.enabled = true;
    c.processes = 2;
    page.setClusterSettings(c);
    QCOMPARE(page.jobDevices()->rankCount(), 2);  // the plan: cpu:0 under each rank
    page.setExtraArguments({"--max-epoch", "1", "--train-samples", "512", "--validation-samples", "256"});
    QVERIFY(page.start());
    QVERIFY(page.engine()->lastCommand().viaMpirun);
    QVERIFY(page.engine()->lastCommand().arguments.contains("orte_enable_recovery"));
    QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 300000);
    QVERIFY2(page.lastOutcome() && page.lastOutcome()->status == RunOutcome::Status::Completed,
             qPrintable(page.statusText() + "\n" + page.logText()));
    QVERIFY(page.iterationEvents() > 0);
    QCOMPARE(page.epochEvents(), 1);
    // The devices the engine reported: rank0/cpu:0 and rank1/cpu:0, one per rank.
    QCOMPARE(page.jobDevices()->rankCount(), 2);
    QCOMPARE(page.jobDevices()->topLevelItem(1)->child(0)->text(0), QString("rank1/cpu:0"));
    QVERIFY2(!page.jobDevices()->topLevelItem(1)->child(0)->text(2).isEmpty(), "the batch of rank 1's device");
    QVERIFY2(page.logText().contains("mpirun"), qPrintable(page.logText()));
    QCOMPARE(page.history().size(), 1);
    QCOMPARE(page.history()[0].status, QString("completed"));
  }

  // mpirun passes its standard input to rank 0: Stop reaches the engine and the job stops cleanly.
  void stopThroughMpirun() {
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);
    ClusterSettings c;
    c.enabled = true;
    c.processes = 2;
    page.setClusterSettings(c);
    page.setExtraArguments({"--max-epoch", "3", "--train-samples", "20000", "--validation-samples", "256"});
    QVERIFY(page.start());
    QTRY_VERIFY_WITH_TIMEOUT(page.iterationEvents() > 0, 120000);
    page.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 120000);
    QVERIFY2(page.lastOutcome()->status == RunOutcome::Status::Stopped, qPrintable(page.statusText() + "\n" + page.logText()));
  }

  // Killing the job ends mpirun and both ranks: nothing of the run is left running. mpirun gets
  // SIGTERM first and passes it on; the engine may take it as a stop (a checkpoint) or die.
  void killEndsEveryRank() {
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);
    ClusterSettings c;
    c.enabled = true;
    c.processes = 2;
    page.setClusterSettings(c);
    page.setExtraArguments({"--max-epoch", "3", "--train-samples", "20000", "--validation-samples", "256"});
    QVERIFY(page.start());
    QTRY_VERIFY_WITH_TIMEOUT(page.iterationEvents() > 0, 120000);
    const QString runFolder = page.currentRunFolder();
    page.engine()->kill();
    QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 30000);
    QVERIFY(page.lastOutcome()->status != RunOutcome::Status::Completed);
    auto leftOver = [&] {
      int n = 0;
      for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
        QFile cmd("/proc/" + pid + "/cmdline");
        if (cmd.open(QIODevice::ReadOnly) && cmd.readAll().contains(runFolder.toUtf8())) ++n;
      }
      return n;
    };
    QDeadlineTimer deadline(20000);
    while (leftOver() > 0 && !deadline.hasExpired()) QTest::qWait(100);
    if (leftOver() > 0) QProcess::execute("sh", {"-c", "ps -ef | grep -v grep | grep netsmith-cli"});
    QCOMPARE(leftOver(), 0);
  }
};

QTEST_MAIN(TestClusterTraining)
#include "tst_cluster_training.moc"
