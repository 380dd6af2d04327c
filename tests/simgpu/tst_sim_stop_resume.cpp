// A run on simulated GPUs (CTest sets NETSMITH_SIMULATED_GPUS=4 with jitter) stopped at a random
// moment — the console's Stop (a "stop" line), Ctrl-C, kill -9 — and resumed with `--devices`
// ends with the parameters_sha256 of the same run never stopped (issue 25: a resume on 2 GPUs
// trained on from the initialisers, and the hash of a completed run resumed was the
// initialisers'). On 2 and 4 GPUs, in fast and in reproducible mode, and from cpu:0 onto 2 GPUs in
// reproducible mode, whose promise (Note [Reproducible training]) covers the change of devices
// since a simulated GPU computes with the CPU kernels.
#include <signal.h>

#include <QDateTime>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "support/cli_runner.h"

using namespace netsmith::test;

class TestSimStopResume : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  QRandomGenerator m_random{static_cast<quint32>(QDateTime::currentMSecsSinceEpoch())};
  int m_runs = 0;

  // The MLP sample, 2 epochs of 1,280 images (20 iterations of 64 each), in the given mode.
  QString project(bool reproducible) {
    std::ifstream in(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_mlp.nsproj");
    Json p = Json::parse(in);
    p["config"]["deterministic"] = reproducible;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    const QString path = m_dir.filePath(reproducible ? "reproducible.nsproj" : "fast.nsproj");
    std::ofstream(path.toStdString()) << p.dump(1);
    return path;
  }
  QString newRunDir() { return m_dir.filePath(QString("run%1").arg(++m_runs)); }
  QStringList trainArgs(const QString& projectPath, const QString& devices, const QString& runDir) const {
    return {"train", projectPath, "--devices", devices, "--max-epoch", "2", "--train-samples", "1280",
            "--validation-samples", "256", "--run-dir", runDir, "--events", "-"};
  }
  static QByteArray tail(const CliRun& run) { return run.stderrText + run.stdoutText.right(1500); }

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
    QVERIFY(m_dir.isValid());
    qInfo() << "random seed of this test run:" << m_random.generate();
  }

  void stopAtRandomMomentsAndResume_data() {
    QTest::addColumn<QString>("before");  // devices of the run that is stopped
    QTest::addColumn<QString>("after");   // devices of the resume and of the run never stopped
    QTest::addColumn<bool>("reproducible");
    QTest::addColumn<bool>("everyWay");  // all three ways to stop, or one drawn at random (CI's time)
    // One GPU in fast mode launches its steps as CUDA graphs (Note [CUDA graphs of a step]).
    QTest::newRow("1 GPU, fast") << "cuda:0" << "cuda:0" << false << true;
    QTest::newRow("2 GPUs, fast") << "cuda:0,cuda:1" << "cuda:0,cuda:1" << false << true;
    QTest::newRow("2 GPUs, reproducible") << "cuda:0,cuda:1" << "cuda:0,cuda:1" << true << false;
    QTest::newRow("4 GPUs, fast") << "cuda:0,cuda:1,cuda:2,cuda:3" << "cuda:0,cuda:1,cuda:2,cuda:3" << false << false;
    QTest::newRow("cpu:0 to 2 GPUs, reproducible") << "cpu:0" << "cuda:0,cuda:1" << true << true;
  }
  void stopAtRandomMomentsAndResume() {
    QFETCH(QString, before);
    QFETCH(QString, after);
    QFETCH(bool, reproducible);
    QFETCH(bool, everyWay);
    const QString path = project(reproducible);
    const CliRun reference = runCli(trainArgs(path, after, newRunDir()));
    QVERIFY2(reference.exitCode == 0, tail(reference).constData());
    const std::string expected = reference.parametersSha();
    QCOMPARE(expected.size(), size_t{64});

    // Three ways to stop, each at a random iteration of the 20 (the last ones included).
    QStringList ways = {"stop", "SIGINT", "kill -9"};
    if (!everyWay) ways = {ways[static_cast<int>(m_random.bounded(3))]};
    for (const QString& how : ways) {
      const int stopAt = 1 + static_cast<int>(m_random.bounded(19));
      qInfo() << how << "after global iteration" << stopAt << "on" << before << ", resumed on" << after;
      const QString runDir = newRunDir();
      bool sent = false;
      const CliRun stopped = runCli(trainArgs(path, before, runDir), 600000, [&](const Json& e, QProcess& p) {
        if (sent || e.value("event", "") != "iteration" || e.value("global_iteration", 0) < stopAt) return;
        sent = true;
        if (how == "stop") p.write("stop\n");
        else if (how == "SIGINT") ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        else p.kill();
      });
      QVERIFY2(sent, tail(stopped).constData());
      if (how != "kill -9") QVERIFY2(stopped.exitCode == 3, tail(stopped).constData());
      const CliRun resumed = runCli({"train", "--resume", runDir, "--devices", after, "--events", "-"});
      QVERIFY2(resumed.exitCode == 0, tail(resumed).constData());
      QCOMPARE(resumed.last("finished").value("status", ""), std::string("completed"));
      QVERIFY2(resumed.parametersSha() == expected,
               qPrintable(QString("%1 after iteration %2: %3, the run never stopped %4")
                              .arg(how)
                              .arg(stopAt)
                              .arg(QString::fromStdString(resumed.parametersSha()), QString::fromStdString(expected))));
      // A completed run resumed again changes nothing and says the trained weights' hash.
      const CliRun again = runCli({"train", "--resume", runDir, "--devices", after, "--events", "-"});
      QVERIFY2(again.exitCode == 0, tail(again).constData());
      QCOMPARE(again.parametersSha(), expected);
    }
  }
};

QTEST_GUILESS_MAIN(TestSimStopResume)
#include "tst_sim_stop_resume.moc"
