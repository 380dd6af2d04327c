// GPUs across processes (Note [GPUs across processes]): mpirun starts netsmith-cli twice on
// simulated GPUs, each process trains its own GPUs, and one NCCL communicator spans the job
// (simulated NCCL meets across processes through its folder: Note [Simulated NCCL across
// processes]). The weights must be those of one process training the same GPUs; two processes
// on one GPU fail at start with a message that says so; a rank killed mid-run is named within
// the timeout and the run resumes to the weights of a run never stopped.
// netsmith-test-labels: mpi
#include <signal.h>

#include <QTemporaryDir>
#include <QtTest>

#include "support/cli_runner.h"
#include "support/mpi_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;

class SimMpiGpusTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  QString project(const std::string& name, const Json& p) { return QString::fromStdString(saveProject(m_dir, name, p)); }
  QString runDir(const QString& name) { return m_dir.filePath(name); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    if (!prepareMpirun()) QSKIP("mpirun (Debian's openmpi-bin) is not installed");
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
    QCOMPARE(job.parametersSha().size(), size_t{64});
    QCOMPARE(job.parametersSha(), one.parametersSha());
    // Every rank's GPUs report to rank 0's events.
    QCOMPARE(job.last("iteration")["devices"].size(), size_t(jobDevices.size()));
  }

  // A plain GPU list is the local rank's (Note [GPUs across processes]): "cuda:0" under
  // mpirun -np 2 on one machine is rank0/cuda:0 and rank1/cuda:1. With CUDA_VISIBLE_DEVICES set
  // per process (mpirun's -x, Slurm's --gpus-per-task) each process's cuda:0 is its own GPU. Both
  // give the weights of one process on two GPUs.
  void plainGpuListUsesEachProcesssOwnGpu() {
    Json p = sampleProject("fashion_mnist_mlp");
    p["config"]["deterministic"] = true;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    p["parallel"]["devices"] = {"cuda:0"};
    const QString path = project("plain", p);
    const QStringList common{"train", path, "--max-epoch", "2", "--train-samples", "1024", "--validation-samples", "256",
                             "--events", "-"};
    const CliRun one = runCli(common + QStringList{"--devices", "cuda:0,cuda:1", "--run-dir", runDir("plain-one")});
    QVERIFY2(one.exitCode == 0, one.stderrText.constData());
    const CliRun byLocalRank = mpirun(2, common + QStringList{"--run-dir", runDir("plain-local-rank")});
    QVERIFY2(byLocalRank.exitCode == 0, byLocalRank.stderrText.constData());
    QCOMPARE(byLocalRank.last("started")["devices"][1].value("id", ""), std::string("rank1/cuda:1"));
    QCOMPARE(byLocalRank.parametersSha(), one.parametersSha());
    // One simulated GPU per process: physical GPU 0 and 1, each its process's cuda:0.
    QStringList perProcess{"--oversubscribe"};
    for (int rank = 0; rank < 2; ++rank) {
      if (rank > 0) perProcess << ":";
      perProcess << "-np" << "1" << "-x" << QString("CUDA_VISIBLE_DEVICES=%1").arg(rank) << cliPath()
                 << common + QStringList{"--run-dir", runDir("plain-visible")};
    }
    const CliRun visible = runProcess("mpirun", perProcess);
    QVERIFY2(visible.exitCode == 0, visible.stderrText.constData());
    QCOMPARE(visible.last("started")["devices"][1].value("id", ""), std::string("rank1/cuda:0"));
    QCOMPARE(visible.parametersSha(), one.parametersSha());
  }

  // Two processes given the same GPU (CUDA_VISIBLE_DEVICES=0 for both) are on one GPU: NCCL
  // refuses it at start, and the run says which GPU and what to do, well before the timeout.
  void twoProcessesOnOneGpuAreRefused() {
    Json p = sampleProject("fashion_mnist_mlp");
    p["parallel"]["devices"] = {"cuda:0"};
    p["parallel"]["timeout_s"] = 120;
    const QString path = project("one-gpu", p);
    QElapsedTimer clock;
    clock.start();
    qputenv("CUDA_VISIBLE_DEVICES", "0");
    const CliRun job = mpirun(2, {"train", path, "--max-epoch", "1", "--train-samples", "256", "--validation-samples",
                                  "64", "--run-dir", runDir("one-gpu-run"), "--events", "-"});
    qunsetenv("CUDA_VISIBLE_DEVICES");
    QVERIFY(job.exitCode != 0);
    // Rank 0's finished event: rank 1's own error line may be cut off when mpirun ends the job.
    const std::string message = job.last("finished").value("message", "");
    QVERIFY2(message.find("one GPU") != std::string::npos && message.find("duplicate GPU") != std::string::npos,
             job.stderrText.constData());
    QVERIFY2(clock.elapsed() < 60000, qPrintable(QString("took %1 ms").arg(clock.elapsed())));
  }

  // SIGKILL of rank 1 in epoch 2: rank 0, in an NCCL collective or waiting for the job's word,
  // names the lost rank within the timeout; the resumed job ends with the hash of one process
  // trained without a stop (reproducible mode).
  void killedRankIsNamedAndTheRunResumes() {
    Json p = sampleProject("fashion_mnist_mlp");
    p["config"]["deterministic"] = true;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    p["parallel"]["timeout_s"] = 5;
    p["parallel"]["devices"] = {"rank0/cuda:0", "rank1/cuda:1"};
    const QString path = project("kill", p);
    const QStringList common{"--max-epoch", "3", "--train-samples", "3200", "--validation-samples", "256"};
    const CliRun reference = runCli(QStringList{"train", path, "--devices", "cuda:0,cuda:1", "--run-dir",
                                                runDir("kill-reference"), "--events", "-"} + common);
    QVERIFY2(reference.exitCode == 0, reference.stderrText.constData());
    const QString dir = runDir("killed");
    QElapsedTimer sinceKill;
    pid_t victim = -1;
    const CliRun run = mpirun(2, QStringList{"train", path, "--run-dir", dir, "--events", "-"} + common, true,
                              [&](const Json& e, QProcess&) {
                                if (victim < 0 && e.value("event", "") == "iteration" && e.value("epoch", 0) >= 2) {
                                  victim = findRank(dir.toStdString(), 1);
                                  if (victim > 0) {
                                    ::kill(victim, SIGKILL);
                                    sinceKill.start();
                                  }
                                }
                              });
    QVERIFY2(victim > 0, "rank 1 was not found to kill");
    const Json finished = run.last("finished");
    QCOMPARE(finished.value("status", ""), std::string("failed"));
    const std::string message = finished.value("message", "");
    QVERIFY2((message.find("rank 1 (") != std::string::npos || message.find("rank1/cuda:1") != std::string::npos) &&
                 message.find("within 5 s") != std::string::npos,
             message.c_str());
    qInfo() << "rank 0 reported the lost rank" << sinceKill.elapsed() << "ms after the kill:" << message.c_str();
    QVERIFY(sinceKill.elapsed() < 30000);
    // As in tst_mpi_training: the resumed job gets the default timeout (a loaded CI machine).
    setRunTimeout(dir.toStdString(), 60);
    const CliRun resumed = mpirun(2, {"train", "--resume", dir, "--accept-edited-settings", "--events", "-"});
    QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
    QCOMPARE(resumed.last("finished").value("status", ""), std::string("completed"));
    QVERIFY(!resumed.ofKind("resumed_from_checkpoint").empty());
    QCOMPARE(resumed.parametersSha(), reference.parametersSha());
  }
};

QTEST_GUILESS_MAIN(SimMpiGpusTest)
#include "tst_sim_mpi_gpus.moc"
