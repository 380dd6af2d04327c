// config.accumulate_gradients on simulated GPUs (Note [Gradient accumulation]): reproducible mode
// trains 4 micro-batches of 64 bit for bit as one batch of 256 on one and two GPUs; fast mode sums
// the micro-batches' gradients on the device (the larger batch's loss to float rounding).
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;

class SimGradientAccumulationTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  int m_runs = 0;

  CliRun train(int64_t batch, int64_t accumulate, bool deterministic, const QString& devices) {
    Json p = smallFashionMlp();
    p["config"]["batch_size"] = batch;
    if (accumulate != 1) p["config"]["accumulate_gradients"] = accumulate;
    p["config"]["deterministic"] = deterministic;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    const std::string file = saveProject(m_dir, "acc" + std::to_string(++m_runs), p);
    return runCli({"train", QString::fromStdString(file), "--max-epoch", "1", "--train-samples", "1024",
                   "--validation-samples", "128", "--devices", devices, "--events", "-"});
  }

 private slots:
  void reproducibleOnOneAndTwoGpus() {
    const CliRun big = train(256, 1, true, "cuda:0");
    QVERIFY2(big.exitCode == 0, big.stderrText.constData());
    for (const QString devices : {QString("cuda:0"), QString("cuda:0,cuda:1")}) {
      const CliRun accumulated = train(64, 4, true, devices);
      QVERIFY2(accumulated.exitCode == 0, accumulated.stderrText.constData());
      QCOMPARE(accumulated.parametersSha(), big.parametersSha());
    }
  }

  void fastModeSumsOnTheDevice() {
    const CliRun big = train(64, 1, false, "cuda:0");
    const CliRun accumulated = train(32, 2, false, "cuda:0");
    QVERIFY2(big.exitCode == 0 && accumulated.exitCode == 0, accumulated.stderrText.constData());
    const auto loss = [](const CliRun& r) { return r.last("epoch")["train_loss"].get<double>(); };
    QVERIFY2(std::abs(loss(accumulated) - loss(big)) < 1e-3 * loss(big),
             qPrintable(QString("%1 vs %2").arg(loss(accumulated)).arg(loss(big))));
    const CliRun two = train(32, 2, false, "cuda:0,cuda:1");
    QVERIFY2(two.exitCode == 0, two.stderrText.constData());
  }
};

QTEST_GUILESS_MAIN(SimGradientAccumulationTest)
#include "tst_sim_gradient_accumulation.moc"
