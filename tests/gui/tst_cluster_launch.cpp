// The Training page's Cluster option without running mpirun: the mpirun command line and
// environment built from the settings, the error when mpirun is missing, the settings kept per
// project path in QSettings (and never in the project), the job's devices grouped by rank and
// host, and sweep runs in the run history with their settings as labels.
#include <qcustomplot.h>

#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/run/cluster_launch.h"
#include "gui/training/cluster_panel.h"
#include "gui/training/job_device_tree.h"
#include "gui/training/run_history.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

QString envValue(const EngineCommand& cmd, const QString& name) {
  for (const auto& [n, v] : cmd.environment)
    if (n == name) return v;
  return QStringLiteral("<unset>");
}

void writeFile(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}

const QStringList kTrain{"train", "/runs/r1/project.nsproj", "--run-dir", "/runs/r1", "--events", "-"};

}  // namespace

class TestClusterLaunch : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

 private slots:
  void initTestCase() {
    // Keep the test's QSettings away from the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("NetsmithTest");
    QCoreApplication::setApplicationName("tst_cluster_launch");
    QSettings().clear();
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    m_project = m_dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj", m_project));
  }
  void cleanupTestCase() { QSettings().clear(); }

  void offMeansTheEngineItself() {
    const EngineCommand cmd = buildEngineCommand("/opt/ns/netsmith-cli", kTrain, ClusterSettings{}, {"/usr/bin/mpirun", 4, true});
    QCOMPARE(cmd.program, QString("/opt/ns/netsmith-cli"));
    QCOMPARE(cmd.arguments, kTrain);
    QVERIFY(cmd.environment.isEmpty());
    QVERIFY(!cmd.viaMpirun);
    QVERIFY(cmd.error.isEmpty());
  }

  void hostfileProcessesPerHostAndNccl() {
    ClusterSettings c;
    c.enabled = true;
    c.hostfile = "/etc/netsmith/hosts";
    c.processesPerHost = 2;
    c.processes = 4;
    c.ncclSocketIfname = "ib0";
    const EngineCommand cmd = buildEngineCommand("/opt/ns/netsmith-cli", kTrain, c, {"/usr/bin/mpirun", 2, true});
    QVERIFY(cmd.error.isEmpty());
    QVERIFY(cmd.viaMpirun);
    QCOMPARE(cmd.program, QString("/usr/bin/mpirun"));
    const QStringList expected = QStringList{"--hostfile", "/etc/netsmith/hosts", "--map-by", "ppr:2:node", "-np", "4", "--mca",
                                             "orte_enable_recovery", "1", "-x", "NCCL_SOCKET_IFNAME", "/opt/ns/netsmith-cli"} +
                                 kTrain;
    QCOMPARE(cmd.arguments, expected);
    QCOMPARE(envValue(cmd, "NCCL_SOCKET_IFNAME"), QString("ib0"));
    QCOMPARE(envValue(cmd, "OMPI_ALLOW_RUN_AS_ROOT"), QString("1"));
    QCOMPARE(envValue(cmd, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QString("1"));
    QCOMPARE(envValue(cmd, "OMPI_MCA_btl_vader_single_copy_mechanism"), QString("none"));
    // More processes than this machine's cores do not matter with a hostfile.
    QVERIFY(!cmd.arguments.contains("--oversubscribe"));
    QVERIFY(cmd.commandLine().startsWith("NCCL_SOCKET_IFNAME=ib0 "));
    QVERIFY(cmd.commandLine().contains("/usr/bin/mpirun --hostfile /etc/netsmith/hosts --map-by ppr:2:node -np 4"));
    QCOMPARE(cmd.processEnvironment().value("NCCL_SOCKET_IFNAME"), QString("ib0"));
  }

  void thisMachineOversubscribesOnlyPastItsCores() {
    ClusterSettings c;
    c.enabled = true;
    c.processesPerHost = 3;  // meaningless without a hostfile: not passed
    c.processes = 2;
    EngineCommand cmd = buildEngineCommand("netsmith-cli", kTrain, c, {"/usr/bin/mpirun", 2, false});
    QCOMPARE(cmd.arguments.mid(0, 6), (QStringList{"-np", "2", "--mca", "orte_enable_recovery", "1", "netsmith-cli"}));
    QVERIFY(!cmd.arguments.contains("--oversubscribe"));
    QVERIFY(!cmd.arguments.contains("--map-by"));
    QVERIFY(!cmd.arguments.contains("-x"));
    QCOMPARE(envValue(cmd, "OMPI_ALLOW_RUN_AS_ROOT"), QString("<unset>"));  // not root
    QCOMPARE(envValue(cmd, "NCCL_SOCKET_IFNAME"), QString("<unset>"));
    c.processes = 3;
    cmd = buildEngineCommand("netsmith-cli", kTrain, c, {"/usr/bin/mpirun", 2, false});
    QCOMPARE(cmd.arguments.mid(0, 3), (QStringList{"--oversubscribe", "-np", "3"}));
  }

  void missingMpirunSaysWhatToInstall() {
    ClusterSettings c;
    c.enabled = true;
    const EngineCommand cmd = buildEngineCommand("netsmith-cli", kTrain, c, {QString(), 2, false});
    QVERIFY2(cmd.error.contains("openmpi-bin") && cmd.error.contains("mpirun"), qPrintable(cmd.error));

    // Through the page: the run fails at once with that sentence, and nothing is left running.
    qputenv("NETSMITH_MPIRUN", m_dir.filePath("no-such-mpirun").toUtf8());
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);
    page.setClusterSettings(c);
    QVERIFY(page.start());
    QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 10000);
    QVERIFY(page.lastOutcome());
    QCOMPARE(page.lastOutcome()->status, RunOutcome::Status::Failed);
    QVERIFY2(page.statusText().contains("openmpi-bin"), qPrintable(page.statusText()));
    qunsetenv("NETSMITH_MPIRUN");
  }

  void hostfileParsingAndRankHosts() {
    const QString text = "# our nodes\nnode1 slots=2\n\nnode2 slots=2 max_slots=4  # second\nnode3\n";
    const auto hosts = parseHostfile(text);
    QCOMPARE(hosts.size(), 3);
    QCOMPARE(hosts[0], qMakePair(QString("node1"), 2));
    QCOMPARE(hosts[1], qMakePair(QString("node2"), 2));
    QCOMPARE(hosts[2], qMakePair(QString("node3"), 0));
    ClusterSettings c;
    c.enabled = true;
    c.processes = 5;
    QCOMPARE(predictRankHosts(c, text).first(), QString("this machine"));
    c.hostfile = "hosts";
    QCOMPARE(predictRankHosts(c, text), (QStringList{"node1", "node1", "node2", "node2", ""}));  // node3: slots unknown
    c.processesPerHost = 1;
    QCOMPARE(predictRankHosts(c, text), (QStringList{"node1", "node2", "node3", "", ""}));
  }

  void jobDevicesGroupedByRank() {
    ClusterSettings c;
    c.enabled = true;
    c.processes = 2;
    auto planned = plannedJobDevices({"cpu:0", "cpu:1"}, c, {"a", "b"});
    QCOMPARE(planned.size(), 4);
    QCOMPARE(planned[2].rank, 1);
    QCOMPARE(planned[2].device, QString("cpu:0"));
    QCOMPARE(planned[2].host, QString("b"));
    // Devices named by rank are each their rank's, whatever the number of processes.
    planned = plannedJobDevices({"rank0/cpu:0", "rank1/cuda:0", "rank1/cuda:1"}, c, {"a", "b"});
    QCOMPARE(planned.size(), 3);
    QCOMPARE(planned[1].device, QString("cuda:0"));
    QCOMPARE(planned[2].rank, 1);

    std::vector<PlannedDevice> started{{"rank0/cpu:0", "rank0/cpu:0", "", 1, 32, 1, 0}, {"rank1/cpu:0", "rank1/cpu:0", "node7", 1, 32, 1, 32}};
    const auto job = startedJobDevices(started, {"this machine", "this machine"});
    QCOMPARE(job[0].host, QString("this machine"));
    QCOMPARE(job[1].host, QString("node7"));  // the engine's word wins
    QCOMPARE(job[1].batch, 32LL);
    JobDeviceTree tree;
    tree.showDevices(job, true);
    QCOMPARE(tree.rankCount(), 2);
    QCOMPARE(tree.topLevelItem(1)->text(0), QString("rank 1"));
    QCOMPARE(tree.topLevelItem(1)->text(1), QString("node7"));
    QCOMPARE(tree.topLevelItem(1)->child(0)->text(0), QString("rank1/cpu:0"));
  }

  void settingsPerProjectPathNotInTheProject() {
    QSettings().clear();  // an earlier test ticked Cluster for this project
    ProjectDocument doc;
    doc.load(m_project);
    const std::string before = doc.toText();
    {
      TrainingPage page(&doc);
      QVERIFY(!page.clusterSettings().enabled);  // off by default
      QVERIFY(page.jobDevices()->isHidden());
      ClusterSettings c;
      c.enabled = true;
      c.processes = 3;
      c.ncclSocketIfname = "eth1";
      page.setClusterSettings(c);
      QVERIFY(!page.jobDevices()->isHidden());
      QCOMPARE(page.jobDevices()->rankCount(), 3);  // the project's cpu:0 under each of 3 ranks
      QCOMPARE(page.jobDevices()->topLevelItem(2)->child(0)->text(0), QString("rank2/cpu:0"));
    }
    QCOMPARE(doc.toText(), before);
    QVERIFY(!doc.isModified());
    // Another page on the same project finds them; another project does not.
    TrainingPage again(&doc);
    QCOMPARE(again.clusterSettings().processes, 3);
    QCOMPARE(again.clusterSettings().ncclSocketIfname, QString("eth1"));
    QVERIFY(again.clusterSettings().enabled);
    const QString other = m_dir.filePath("other.nsproj");
    QVERIFY(QFile::copy(m_project, other));
    ProjectDocument otherDoc;
    otherDoc.load(other);
    TrainingPage third(&otherDoc);
    QVERIFY(!third.clusterSettings().enabled);
    QCOMPARE(loadClusterSettings(other), ClusterSettings{});
    QCOMPARE(loadClusterSettings(m_project).processes, 3);
  }

  void sweepRunsInTheHistoryWithTheirSettings() {
    QTemporaryDir dir;
    const QString project = dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(m_project, project));
    const QString runs = dir.filePath("lenet.runs");
    const QByteArray curve = "epoch,train_loss,validation_loss,validation_error\n1,0.9,0.8,0.3\n2,0.6,0.5,0.2\n";
    const QByteArray events =
        "{\"event\":\"started\",\"run\":\"x\",\"devices\":[]}\n"
        "{\"event\":\"epoch\",\"epoch\":2,\"train_loss\":0.6,\"validation_error\":0.2}\n"
        "{\"event\":\"finished\",\"status\":\"completed\",\"best_validation_error\":0.2}\n";
    for (const char* name : {"20260101-100000-sweep1-alpha=0.001", "20260101-100000-sweep2-alpha=0.01", "20260101-090000"}) {
      writeFile(runs + "/" + name + "/events.jsonl", events);
      writeFile(runs + "/" + name + "/learning_curve.csv", curve);
    }
    writeFile(runs + "/20260101-100000-sweep/1-alpha=0.001.nsproj", "{}");
    writeFile(runs + "/20260101-100000-sweep/summary.json",
              "[{\"settings\":{\"optimizer.alpha\":0.001},\"label\":\"alpha=0.001\",\"status\":\"completed\","
              "\"run\":\"" + runs.toUtf8() + "/20260101-100000-sweep1-alpha=0.001\"},"
              "{\"settings\":{\"optimizer.alpha\":0.01},\"label\":\"alpha=1e-2 (summary)\",\"status\":\"completed\","
              "\"run\":\"lenet.runs/20260101-100000-sweep2-alpha=0.01\"}]\n");
    const QList<RunSummary> listed = listRuns(runs);
    QCOMPARE(listed.size(), 3);  // the sweep's own folder is not a run
    QCOMPARE(listed[0].sweepLabel, QString("alpha=1e-2 (summary)"));  // relative run path, matched by name
    QCOMPARE(listed[1].sweepLabel, QString("alpha=0.001"));
    QCOMPARE(listed[1].sweep, QString("20260101-100000"));
    QCOMPARE(listed[1].displayName(), QString("20260101-100000 · alpha=0.001"));
    QVERIFY(listed[2].sweepLabel.isEmpty());
    QCOMPARE(listed[1].status, QString("completed"));

    // Without a summary (a sweep still running) the label comes from the folder name.
    QVERIFY(QFile::remove(runs + "/20260101-100000-sweep/summary.json"));
    QCOMPARE(listRuns(runs)[0].sweepLabel, QString("alpha=0.01"));

    ProjectDocument doc;
    doc.load(project);
    TrainingPage page(&doc);
    QCOMPARE(page.history().size(), 3);
    auto* list = page.findChild<QListWidget*>();
    QVERIFY(list);
    QVERIFY2(list->item(1)->text().contains("alpha=0.001"), qPrintable(list->item(1)->text()));
    list->item(0)->setCheckState(Qt::Checked);
    list->item(1)->setCheckState(Qt::Checked);
    auto* plot = page.findChild<QCustomPlot*>();
    QVERIFY(plot);
    QStringList names;
    for (int i = 0; i < plot->graphCount(); ++i) names << plot->graph(i)->name();
    QVERIFY2(names.contains("alpha=0.001 training loss") && names.contains("alpha=0.01 validation error"),
             qPrintable(names.join(" | ")));
    QCOMPARE(plot->graph(names.indexOf("alpha=0.001 training loss"))->data()->size(), 2);
  }
};

QTEST_MAIN(TestClusterLaunch)
#include "tst_cluster_launch.moc"
