// A run stopped on a CPU worker resumes on two simulated GPUs (CTest sets
// NETSMITH_SIMULATED_GPUS=4; Note [Simulated GPUs]) with `train --resume RUN --devices
// cuda:0,cuda:1`: the checkpoint's weights and solver state go onto the GPUs, the run keeps its
// logical batch and learning rate (Note [Resume on other devices]) and completes.
#include <QtTest>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

class TestSimResume : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
  }

  void cpuRunResumesOnTwoGpus() {
    QTemporaryDir dir;
    const QString runDir = dir.path() + "/run";
    bool sent = false;
    const CliRun stopped =
        runProcess(cliPath(),
                   {"train", sourcePath("projects/fashion_mnist_mlp.nsproj"), "--devices", "cpu:0", "--max-epoch", "2",
                    "--train-samples", "1280", "--validation-samples", "256", "--run-dir", runDir, "--events", "-"},
                   600000, [&](const Json& e, QProcess& p) {
                     if (!sent && e.value("event", "") == "iteration" && e.value("global_iteration", 0) >= 6) {
                       p.write("stop\n");
                       sent = true;
                     }
                   });
    QCOMPARE(stopped.exitCode, 3);
    const Json before = stopped.last("started");

    const CliRun resumed = runProcess(cliPath(), {"train", "--resume", runDir, "--devices", "cuda:0,cuda:1", "--events", "-"});
    QVERIFY2(resumed.exitCode == 0, (resumed.stderrText + resumed.stdoutText.right(900)).constData());
    QCOMPARE(resumed.last("finished")["status"].get<std::string>(), std::string("completed"));
    const Json started = resumed.last("started");
    QCOMPARE(started["logical_batch"], before["logical_batch"]);
    QCOMPARE(started["effective_lr"], before["effective_lr"]);
    QCOMPARE(started["devices"].size(), size_t{2});
    for (const Json& d : started["devices"]) QCOMPARE(d["batch"].get<int>(), 32);
    const Json change = started["device_change"];
    QVERIFY2(change.is_object(), started.dump().c_str());
    QVERIFY2(change["message"].get<std::string>().rfind("Resumed on cuda:0,cuda:1 (was cpu:0): per-device batch 32 (was 64), "
                                                        "logical batch 64 unchanged",
                                                        0) == 0,
             change.dump().c_str());
    QVERIFY(!resumed.ofKind("resumed_from_checkpoint").empty());
    // The resumed epochs learned on from the CPU's weights.
    const double error = resumed.last("epoch")["validation_error"].get<double>();
    QVERIFY2(error < 0.5, qPrintable(QString::number(error)));
  }
};

QTEST_GUILESS_MAIN(TestSimResume)
#include "tst_sim_resume.moc"
