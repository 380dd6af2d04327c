// Transfer learning on simulated GPUs (Note [Simulated GPUs]): a run on cuda:0,cuda:1 started from
// another run's parameters (Note [Initial parameters]) with a layer frozen (Note [Frozen layers])
// ends with that layer's blobs bit for bit the file's, the other loaded layers trained, and Adam
// state only for the learning layers. Before the initial parameters went straight into the
// kernels' tensors, a GPU replica's check at the start downloaded its initialisers' values over
// them, and the run trained from random weights.
#include <QtTest>

#include <cstring>

#include "engine/model/checkpoint.h"
#include "support/checkpoint_blobs.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

class TestSimFrozen : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() {
    QVERIFY2(!qgetenv("NETSMITH_SIMULATED_GPUS").isEmpty(), "run through CTest, which sets NETSMITH_SIMULATED_GPUS");
  }

  void frozenLayerKeepsTheFilesValuesOnGpus() {
    Json project = sampleProject("fashion_mnist_mlp");
    project["config"]["max_epoch"] = 1;
    project["optimizer"] = {{"solver", "Adam"}};
    TrainOptions options;
    options.trainSamples = 256;
    options.validationSamples = 64;
    const TrainedRun base = trainInProcess(m_dir, saveProject(m_dir, "base", project), options);
    QCOMPARE(QString::fromStdString(base.result.status), QString("completed"));
    const std::string baseRun = base.events->last("finished").value("run", "");

    project["config"]["initial_parameters"] = baseRun;
    project["network"]["nodes"][1]["frozen"] = true;  // fc1
    project["parallel"]["devices"] = {"cuda:0", "cuda:1"};
    const TrainedRun tuned = trainInProcess(m_dir, saveProject(m_dir, "tuned", project), options);
    QVERIFY2(tuned.result.status == "completed", tuned.result.message.c_str());
    const std::string run = tuned.events->last("finished").value("run", "");
    QCOMPARE(tuned.events->last("initial_parameters").value("loaded", -1), 6);
    const auto before = blobsOf(baseRun + "/parameters.nsparams"), after = blobsOf(run + "/parameters.nsparams");
    QVERIFY(sameBits(before.at("fc1/W"), after.at("fc1/W")) && sameBits(before.at("fc1/b"), after.at("fc1/b")));
    QVERIFY(!sameBits(before.at("fc2/W"), after.at("fc2/W")));
    // Trained from the file, not from the initialisers: fc2 moved only a little from the file's.
    const double moved = relativeChange(before.at("fc2/W"), after.at("fc2/W"));
    qInfo("fc2/W moved by %.3g of its size (mean abs)", moved);
    QVERIFY(moved < 0.5);
    const auto checkpoint = newestValidCheckpoint(run + "/checkpoints");
    QVERIFY(checkpoint);
    for (const auto& [name, t] : readCheckpoint(*checkpoint).tensors)
      QVERIFY2(name.rfind("optim/fc1/", 0) != 0, name.c_str());
  }
};

QTEST_GUILESS_MAIN(TestSimFrozen)
#include "tst_sim_frozen.moc"
