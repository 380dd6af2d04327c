// GPUs across processes (Note [GPUs across processes]): mpirun starts netsmith-cli twice on
// simulated GPUs, each process trains its own GPUs, and one NCCL communicator spans the job
// (simulated NCCL meets across processes through its folder: Note [Simulated NCCL across
// processes]). The weights must be those of one process training the same GPUs; two processes
// on one GPU fail at start with a message that says so.
// netsmith-test-labels: mpi
#include <QTemporaryDir>
#include <QtTest>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;

namespace {

CliRun mpirun(int processes, const QStringList& cliArgs, int timeoutMs = 600000) {
  return runProcess("mpirun", QStringList{"--oversubscribe", "-np", QString::number(processes), cliPath()} + cliArgs,
                    timeoutMs);
}

std::string shaOf(const CliRun& run) { return run.last("finished").value("parameters_sha256", ""); }

}  // namespace

class SimMpiGpusTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  QString project(const std::string& name, const Json& p) { return QString::fromStdString(saveProject(m_dir, name, p)); }
  QString runDir(const QString& name) { return m_dir.filePath(name); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("OMPI_ALLOW_RUN_AS_ROOT", "1");
    qputenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    qputenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
    const CliRun version = runProcess("mpirun", {"--version"}, 30000);
    if (version.exitCode != 0) QSKIP("mpirun (Debian's openmpi-bin) is not installed");
  }

  // The job's GPUs as ranks list them, against one process on the same GPUs: reproducible mode
  // gives the same weights (on 4 GPUs through the tree-order sum across processes), and fast mode
  // on 2 GPUs too (two buffers add the same in any order).
  void sameWeightsAsOneProcess_data() {
    QTest::addColumn<QStringList>("jobDevices");
    QTest::addColumn<QString>("localDevices");
    QTest::addColumn<bool>("deterministic");
    QTest::newRow("2 processes x 1 GPU, reproducible")
        << QStringList{"rank0/cuda:0", "rank1/cuda:1"} << "cuda:0,cuda:1" << true;
    QTest::newRow("2 processes x 1 GPU, fast") << QStringList{"rank0/cuda:0", "rank1/cuda:1"} << "cuda:0,cuda:1" << false;
    QTest::newRow("2 processes x 2 GPUs, reproducible")
        << QStringList{"rank0/cuda:0", "rank0/cuda:1", "rank1/cuda:2", "rank1/cuda:3"} << "cuda:0,cuda:1,cuda:2,cuda:3"
        << true;
  }
  void sameWeightsAsOneProcess() {
    QFETCH(QStringList, jobDevices);
    QFETCH(QString, localDevices);
    QFETCH(bool, deterministic);
    Json p = sampleProject("fashion_mnist_mlp");
    p["config"]["deterministic"] = deterministic;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    Json devices = Json::array();
    for (const QString& d : jobDevices) devices.push_back(d.toStdString());
    p["parallel"]["devices"] = devices;
    const std::string tag = QTest::currentDataTag();
    const QString path = project("job" + std::to_string(std::hash<std::string>{}(tag)), p);
    const QStringList common{"--max-epoch", "2", "--train-samples", "1024", "--validation-samples", "256", "--events", "-"};
    const CliRun one = runCli(QStringList{"train", path, "--devices", localDevices, "--run-dir", runDir("one" + QString::fromStdString(tag))} + common);
    QVERIFY2(one.exitCode == 0, one.stderrText.constData());
    const CliRun job = mpirun(2, QStringList{"train", path, "--run-dir", runDir("job" + QString::fromStdString(tag))} + common);
    QVERIFY2(job.exitCode == 0, job.stderrText.constData());
    const Json started = job.last("started");
    QCOMPARE(started["devices"].size(), size_t(jobDevices.size()));
    QCOMPARE(started["devices"][jobDevices.size() - 1].value("id", ""), jobDevices.back().toStdString());
    QCOMPARE(shaOf(job).size(), size_t{64});
    QCOMPARE(shaOf(job), shaOf(one));
    // Every rank's GPUs report to rank 0's events.
    QCOMPARE(job.last("iteration")["devices"].size(), size_t(jobDevices.size()));
  }

  // Two processes of one machine both told to train "cuda:0" are on one GPU: NCCL refuses it at
  // start, and the run says which GPU and what to do, well before parallel.timeout_s.
  void twoProcessesOnOneGpuAreRefused() {
    Json p = sampleProject("fashion_mnist_mlp");
    p["parallel"]["devices"] = {"cuda:0"};
    p["parallel"]["timeout_s"] = 120;
    const QString path = project("one-gpu", p);
    QElapsedTimer clock;
    clock.start();
    const CliRun job = mpirun(2, {"train", path, "--max-epoch", "1", "--train-samples", "256", "--validation-samples",
                                  "64", "--run-dir", runDir("one-gpu-run"), "--events", "-"});
    QVERIFY(job.exitCode != 0);
    QVERIFY2(job.stderrText.contains("one GPU") && job.stderrText.contains("duplicate GPU"), job.stderrText.constData());
    QVERIFY2(clock.elapsed() < 60000, qPrintable(QString("took %1 ms").arg(clock.elapsed())));
  }
};

QTEST_GUILESS_MAIN(SimMpiGpusTest)
#include "tst_sim_mpi_gpus.moc"
