// optimizer.ema_decay on simulated GPUs (Note [Weight averaging]): the average is updated by the
// device's own kernel after the fused solver step; in reproducible mode one and two GPUs save the
// same parameters, and every checkpoint's average is the previous one moved toward the step's
// weights, bit for bit; fast mode (a step captured as a CUDA graph on one GPU) averages too; a
// frozen layer loaded from another run keeps the file's bits, and the average starts from the
// loaded weights, not from the initialisers.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>

#include "support/checkpoint_blobs.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"
#include "support/weight_average_check.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

class SimWeightAveragingTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  int m_runs = 0;

  CliRun train(Json p, const QString& devices, const QString& samples, const QString& epochs, QString* runDir = nullptr) {
    const std::string name = "ema" + std::to_string(++m_runs);
    const QString dir = m_dir.filePath(QString::fromStdString(name) + "-run");
    if (runDir) *runDir = dir;
    return runCli({"train", QString::fromStdString(saveProject(m_dir, name, p)), "--max-epoch", epochs,
                   "--train-samples", samples, "--validation-samples", "128", "--devices", devices, "--events", "-",
                   "--run-dir", dir});
  }

  static Json project(double decay, bool deterministic) {
    Json p = smallFashionMlp();
    insertAfter(p, "fc1", "bn", "BatchNormalization", Json::object());
    p["config"]["batch_size"] = 64;
    p["config"]["deterministic"] = deterministic;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    if (decay != 0) p["optimizer"]["ema_decay"] = decay;
    return p;
  }

 private slots:
  void initTestCase() {
    QVERIFY2(!qgetenv("NETSMITH_SIMULATED_GPUS").isEmpty(), "run through CTest, which sets NETSMITH_SIMULATED_GPUS");
  }

  void reproducibleOnOneAndTwoGpus() {
    const CliRun one = train(project(0.9, true), "cuda:0", "1024", "1");
    QVERIFY2(one.exitCode == 0, one.stderrText.constData());
    const CliRun two = train(project(0.9, true), "cuda:0,cuda:1", "1024", "1");
    QVERIFY2(two.exitCode == 0, two.stderrText.constData());
    QCOMPARE(two.parametersSha(), one.parametersSha());
    const CliRun plain = train(project(0, true), "cuda:0", "1024", "1");
    QVERIFY2(plain.exitCode == 0, plain.stderrText.constData());
    QVERIFY2(plain.parametersSha() != one.parametersSha(), "the average changed nothing");
  }

  // One iteration per epoch: consecutive checkpoints are one step apart.
  void averageOfEveryStep() {
    QString dir;
    const CliRun run = train(project(0.9, true), "cuda:0,cuda:1", "64", "3", &dir);
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const std::string failure = averagesFollowWeights(dir.toStdString(), 0.9);
    QVERIFY2(failure.empty(), failure.c_str());
  }

  void fastModeAverages() {
    QString dir;
    const CliRun run = train(project(0.9, false), "cuda:0", "64", "3", &dir);
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const std::string failure = averagesFollowWeights(dir.toStdString(), 0.9);
    QVERIFY2(failure.empty(), failure.c_str());
  }

  void frozenLayerAndLoadedStart() {
    QString baseDir;
    const CliRun base = train(project(0, false), "cuda:0", "256", "1", &baseDir);
    QVERIFY2(base.exitCode == 0, base.stderrText.constData());
    Json p = project(0.99, false);
    p["config"]["initial_parameters"] = baseDir.toStdString();
    for (Json& n : p["network"]["nodes"])
      if (n["id"] == "fc1") n["frozen"] = true;
    QString tunedDir;
    const CliRun tuned = train(p, "cuda:0,cuda:1", "256", "1", &tunedDir);
    QVERIFY2(tuned.exitCode == 0, tuned.stderrText.constData());
    const auto before = blobsOf(baseDir.toStdString() + "/parameters.nsparams");
    const auto after = blobsOf(tunedDir.toStdString() + "/parameters.nsparams");
    QVERIFY(sameBits(before.at("fc1/W"), after.at("fc1/W")) && sameBits(before.at("fc1/b"), after.at("fc1/b")));
    QVERIFY(!sameBits(before.at("fc2/W"), after.at("fc2/W")));
    // 4 steps at decay 0.99 keep the average within a few percent of where it started: the file's.
    const double moved = relativeChange(before.at("fc2/W"), after.at("fc2/W"));
    qInfo("fc2/W's average moved by %.3g of its size (mean abs)", moved);
    QVERIFY(moved < 0.1);
  }
};

QTEST_GUILESS_MAIN(SimWeightAveragingTest)
#include "tst_sim_weight_averaging.moc"
