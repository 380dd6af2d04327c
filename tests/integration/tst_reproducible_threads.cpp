// Reproducible mode on worker threads (issue 3), small enough for ThreadSanitizer: each worker
// sums its chunks' gradients in its own ChunkTree and the workers' subtrees meet in the
// communicator in a fixed order (Note [Reduction tree]), so 1, 2 and 4 CPU workers train the
// same weights bit for bit. tst_data_parallel checks the samples at full size; this file runs
// the same path with Dropout (per-sample random streams) in the TSan subset.
// netsmith-test-labels: tsan
#include <QTemporaryDir>
#include <QtTest>

#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

class ReproducibleThreadsTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void oneTwoAndFourWorkersTrainTheSameWeights() {
    Json p = sampleProject("fashion_mnist_mlp");
    p["config"]["deterministic"] = true;
    p["config"]["batch_size"] = 32;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    // Dropout after the first ReLU: its masks come from per-sample streams, not from a worker.
    insertAfter(p, firstNodeOfType(p, "ReLU"), "drop1", "Dropout", {{"p", 0.25}});
    const std::string path = saveProject(m_dir, "reproducible", p);

    std::vector<std::string> shas;
    for (const std::vector<std::string>& devices :
         {std::vector<std::string>{"cpu:0"}, {"cpu:0", "cpu:1"}, {"cpu:0", "cpu:1", "cpu:2", "cpu:3"}}) {
      TrainOptions o;
      o.maxEpoch = 2;
      o.trainSamples = 256;
      o.validationSamples = 64;
      o.devices = devices;
      const TrainedRun run = trainInProcess(m_dir, path, o);
      QCOMPARE(run.result.status, std::string("completed"));
      QCOMPARE(run.events->last("started")["devices"].size(), devices.size());
      shas.push_back(run.result.parametersSha256);
    }
    QVERIFY(!shas[0].empty());
    QCOMPARE(shas[1], shas[0]);
    QCOMPARE(shas[2], shas[0]);
  }
};

QTEST_GUILESS_MAIN(ReproducibleThreadsTest)
#include "tst_reproducible_threads.moc"
