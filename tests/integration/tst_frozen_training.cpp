// netsmith-test-labels: tsan
// Training with frozen layers and learning-rate multipliers (Note [Frozen layers], engine/
// project/graph.h), from another run's parameters (Note [Initial parameters]): frozen blobs stay
// bit for bit the file's, have no optimizer state in the checkpoint, and a frozen
// BatchNormalization keeps its running statistics while an unfrozen one moves them; 1 and 2 CPU
// workers give the same weights in reproducible mode; lr_mult 2 is exactly twice the learning rate
// for that layer (Sgd, one step) and lr_mult 0 keeps a layer as it was.
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>

#include "engine/model/checkpoint.h"
#include "support/checkpoint_blobs.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

// Input 1x28x28 -> conv (4 maps, 5x5, stride 2) -> bn -> relu -> fc (32) -> relu -> head (10).
Json smallNet(const Json& dataset) {
  Json nodes = Json::array();
  nodes.push_back({{"id", "x"}, {"type", "Input"}, {"params", {{"shape", {1, 28, 28}}}}});
  nodes.push_back({{"id", "conv"}, {"type", "Convolution"}, {"params", {{"outmaps", 4}, {"kernel", {5, 5}}, {"stride", {2, 2}}}}});
  nodes.push_back({{"id", "bn"}, {"type", "BatchNormalization"}});
  nodes.push_back({{"id", "relu"}, {"type", "ReLU"}});
  nodes.push_back({{"id", "fc"}, {"type", "Affine"}, {"params", {{"n_outmaps", {32}}}}});
  nodes.push_back({{"id", "relu2"}, {"type", "ReLU"}});
  nodes.push_back({{"id", "head"}, {"type", "Affine"}, {"params", {{"n_outmaps", {10}}}}});
  nodes.push_back({{"id", "loss"}, {"type", "SoftmaxCrossEntropy"}});
  Json links = Json::array();
  for (size_t i = 0; i + 1 < nodes.size(); ++i) links.push_back({{"from", nodes[i]["id"]}, {"to", nodes[i + 1]["id"]}});
  return {{"format", "netsmith-project"},
          {"version", 1},
          {"name", "frozen"},
          {"network", {{"nodes", nodes}, {"links", links}}},
          {"dataset", dataset},
          {"config", {{"max_epoch", 1}, {"batch_size", 32}, {"seed", 3}}},
          {"optimizer", {{"solver", "Adam"}}},
          {"parallel", {{"devices", {"cpu:0"}}, {"threads_per_device", 1}}}};
}

Json& nodeOf(Json& project, const std::string& id) {
  for (Json& n : project["network"]["nodes"])
    if (n["id"] == id) return n;
  throw std::runtime_error("no node " + id);
}

}  // namespace

class FrozenTrainingTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  Json m_base;
  std::string m_baseRun;  // a trained run whose parameters the others start from

  TrainedRun train(const std::string& name, const Json& project, int64_t trainSamples = 256) {
    TrainOptions options;
    options.trainSamples = trainSamples;
    options.validationSamples = 64;
    TrainedRun run = trainInProcess(m_dir, saveProject(m_dir, name, project), options);
    if (run.result.status != "completed") qWarning("%s: %s", name.c_str(), run.result.message.c_str());
    return run;
  }
  static std::string runDir(const TrainedRun& run) { return run.events->last("finished").value("run", ""); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_base = smallNet(sampleProject("fashion_mnist_mlp")["dataset"]);
    const TrainedRun base = train("base", m_base);
    QCOMPARE(QString::fromStdString(base.result.status), QString("completed"));
    m_baseRun = runDir(base);
  }

  void frozenBlobsStayTheFilesAndHaveNoOptimizerState() {
    Json p = m_base;
    p["config"]["initial_parameters"] = m_baseRun;  // a run folder: its parameters.nsparams
    nodeOf(p, "conv")["frozen"] = true;
    nodeOf(p, "bn")["frozen"] = true;
    const TrainedRun run = train("frozen", p);
    QCOMPARE(QString::fromStdString(run.result.status), QString("completed"));
    const Json report = run.events->last("initial_parameters");
    QCOMPARE(report.value("loaded", -1), 10);  // conv 2, bn 4, fc 2, head 2
    QCOMPARE(report.value("new", -1), 0);
    QCOMPARE(report.value("file", ""), m_baseRun + "/parameters.nsparams");
    std::ifstream runJson(runDir(run) + "/run.json");
    QCOMPARE(Json::parse(runJson)["initial_parameters"]["loaded"], Json(10));

    const auto before = blobsOf(m_baseRun + "/parameters.nsparams");
    const auto after = blobsOf(runDir(run) + "/parameters.nsparams");
    for (const char* name : {"conv/W", "conv/b", "bn/beta", "bn/gamma", "bn/mean", "bn/var"})
      QVERIFY2(sameBits(before.at(name), after.at(name)), name);
    for (const char* name : {"fc/W", "head/W", "head/b"}) QVERIFY2(!sameBits(before.at(name), after.at(name)), name);

    // The checkpoint: Adam's state for the learning layers only.
    const auto checkpoint = newestValidCheckpoint(runDir(run) + "/checkpoints");
    QVERIFY(checkpoint);
    std::vector<std::string> state;
    for (const auto& [name, t] : readCheckpoint(*checkpoint).tensors)
      if (name.rfind("optim/", 0) == 0) state.push_back(name);
    QCOMPARE(state, (std::vector<std::string>{"optim/fc/W/m", "optim/fc/W/v", "optim/fc/b/m", "optim/fc/b/v",
                                              "optim/head/W/m", "optim/head/W/v", "optim/head/b/m", "optim/head/b/v"}));

    // Only the convolution frozen: the BatchNormalization learns and updates its statistics.
    Json q = m_base;
    q["config"]["initial_parameters"] = m_baseRun + "/parameters.nsparams";
    nodeOf(q, "conv")["frozen"] = true;
    const TrainedRun second = train("conv-frozen", q);
    QCOMPARE(QString::fromStdString(second.result.status), QString("completed"));
    const auto moved = blobsOf(runDir(second) + "/parameters.nsparams");
    QVERIFY(sameBits(before.at("conv/W"), moved.at("conv/W")));
    for (const char* name : {"bn/gamma", "bn/mean", "bn/var"}) QVERIFY2(!sameBits(before.at(name), moved.at(name)), name);
  }

  // Reproducible mode: 1 and 2 workers (threads) train the same weights with frozen layers and a
  // multiplier, and the frozen ones stay the file's.
  void oneAndTwoWorkersGiveTheSameWeights() {
    Json p = m_base;
    p["config"]["initial_parameters"] = m_baseRun;
    p["config"]["deterministic"] = true;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    nodeOf(p, "conv")["frozen"] = true;
    nodeOf(p, "bn")["frozen"] = true;
    nodeOf(p, "fc")["lr_mult"] = 0.5;
    const TrainedRun one = train("one", p);
    p["parallel"]["devices"] = {"cpu:0", "cpu:1"};
    const TrainedRun two = train("two", p);
    QCOMPARE(QString::fromStdString(one.result.status), QString("completed"));
    QCOMPARE(QString::fromStdString(two.result.status), QString("completed"));
    qInfo("1 worker %s, 2 workers %s", one.result.parametersSha256.c_str(), two.result.parametersSha256.c_str());
    QCOMPARE(one.result.parametersSha256, two.result.parametersSha256);
    const auto before = blobsOf(m_baseRun + "/parameters.nsparams");
    const auto after = blobsOf(runDir(two) + "/parameters.nsparams");
    QVERIFY(sameBits(before.at("conv/W"), after.at("conv/W")) && sameBits(before.at("bn/mean"), after.at("bn/mean")));
    QVERIFY(!sameBits(before.at("fc/W"), after.at("fc/W")));
  }

  // One Sgd step (32 samples, batch 32): head with lr_mult 2 at lr 0.01 is the head of lr 0.02,
  // bit for bit, while the other layers are those of lr 0.01; lr_mult 0 keeps fc as it was.
  void learningRateMultipliers() {
    Json p = m_base;
    p["config"]["initial_parameters"] = m_baseRun;
    p["optimizer"] = {{"solver", "Sgd"}, {"lr", 0.01}};
    const auto at = [&](const std::string& name, const Json& project) {
      const TrainedRun run = train(name, project, 32);
      return blobsOf(runDir(run) + "/parameters.nsparams");
    };
    const auto plain = at("lr1", p);
    Json doubled = p;
    doubled["optimizer"]["lr"] = 0.02;
    const auto twice = at("lr2", doubled);
    Json mult = p;
    nodeOf(mult, "head")["lr_mult"] = 2;
    nodeOf(mult, "fc")["lr_mult"] = 0;
    const auto multiplied = at("mult", mult);
    QVERIFY(sameBits(multiplied.at("head/W"), twice.at("head/W")) && sameBits(multiplied.at("head/b"), twice.at("head/b")));
    QVERIFY(!sameBits(multiplied.at("head/W"), plain.at("head/W")));
    QVERIFY(sameBits(multiplied.at("conv/W"), plain.at("conv/W")) && sameBits(multiplied.at("bn/gamma"), plain.at("bn/gamma")));
    QVERIFY(!sameBits(multiplied.at("conv/W"), twice.at("conv/W")));
    const auto before = blobsOf(m_baseRun + "/parameters.nsparams");
    QVERIFY(sameBits(multiplied.at("fc/W"), before.at("fc/W")) && sameBits(multiplied.at("fc/b"), before.at("fc/b")));
    QVERIFY(!sameBits(plain.at("fc/W"), before.at("fc/W")));
  }
};

QTEST_GUILESS_MAIN(FrozenTrainingTest)
#include "tst_frozen_training.moc"
