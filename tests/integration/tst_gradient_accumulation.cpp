// config.accumulate_gradients (Note [Gradient accumulation]): in reproducible mode K micro-batches
// of B train bit for bit as one batch of K·B, on one and two CPU workers, and not as a batch of B;
// in fast mode the step's gradient is the sum over the micro-batches (the larger batch's result
// to float rounding, a different one from a batch of B); the plan says so.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;

class GradientAccumulationTest : public QObject {
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
    return runCli({"train", QString::fromStdString(file), "--max-epoch", "1", "--train-samples", "2048",
                   "--validation-samples", "256", "--devices", devices, "--events", "-"});
  }

 private slots:
  void reproducibleAccumulationIsOneLargerBatch() {
    const CliRun big = train(256, 1, true, "cpu:0");
    QVERIFY2(big.exitCode == 0, big.stderrText.constData());
    for (const QString devices : {QString("cpu:0"), QString("cpu:0,cpu:1")}) {
      const CliRun accumulated = train(64, 4, true, devices);
      QVERIFY2(accumulated.exitCode == 0, accumulated.stderrText.constData());
      QCOMPARE(accumulated.parametersSha(), big.parametersSha());
      const Json plan = accumulated.last("started");
      QCOMPARE(plan["logical_batch"].get<int>(), 256);
      QCOMPARE(plan["accumulate_gradients"].get<int>(), 4);
      QCOMPARE(plan["iterations_per_epoch"].get<int>(), 8);
    }
    const CliRun small = train(64, 1, true, "cpu:0");
    QVERIFY(small.parametersSha() != big.parametersSha());
  }

  void fastAccumulationSumsTheMicroBatches() {
    const CliRun big = train(64, 1, false, "cpu:0");
    const CliRun accumulated = train(32, 2, false, "cpu:0");
    const CliRun small = train(32, 1, false, "cpu:0");
    for (const CliRun* r : {&big, &accumulated, &small}) QVERIFY2(r->exitCode == 0, r->stderrText.constData());
    QCOMPARE(accumulated.last("started")["iterations_per_epoch"].get<int>(), 32);
    const auto loss = [](const CliRun& r) { return r.last("epoch")["train_loss"].get<double>(); };
    // One iteration of 64 and two micro-batches of 32 differ only in the order of float sums.
    QVERIFY2(std::abs(loss(accumulated) - loss(big)) < 1e-3 * loss(big),
             qPrintable(QString("%1 vs %2").arg(loss(accumulated)).arg(loss(big))));
    QVERIFY2(std::abs(loss(small) - loss(big)) > 1e-3 * loss(big),
             qPrintable(QString("batch 32: %1, batch 64: %2").arg(loss(small)).arg(loss(big))));
  }

  void thePlanSaysSo() {
    Json p = smallFashionMlp();
    p["config"]["accumulate_gradients"] = 3;
    const std::string file = saveProject(m_dir, "plan", p);
    const CliRun run = runCli({"train", QString::fromStdString(file), "--dry-run", "--devices", "cpu:0"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    QVERIFY2(run.stdoutText.contains("Accumulation:         3 micro-batches"), run.stdoutText.constData());
    p["config"]["accumulate_gradients"] = 0;
    const std::string bad = saveProject(m_dir, "bad", p);
    const CliRun refused = runCli({"train", QString::fromStdString(bad), "--dry-run"});
    QVERIFY(refused.exitCode != 0);
    QVERIFY2(refused.stderrText.contains("config.accumulate_gradients"), refused.stderrText.constData());
  }
};

QTEST_GUILESS_MAIN(GradientAccumulationTest)
#include "tst_gradient_accumulation.moc"
