// optimizer.ema_decay end to end on CPU workers (Note [Weight averaging]), in reproducible mode:
// every checkpoint's average is the previous one moved toward the step's weights (recomputed
// here with the body, bit for bit), training itself is untouched (the weights equal a run without
// the average), parameters.nsparams holds the average and `evaluate` finds the error the last
// validation reported; cpu:0 and cpu:0,cpu:1 save the same parameters; a run stopped midway and
// resumed ends with the uninterrupted run's parameters; a run whose checkpoint holds no average
// (the average turned on by an accepted edit) starts it from that checkpoint's weights, saying so;
// the plan says so; values outside [0, 1) are refused naming their path.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "support/checkpoint_blobs.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"
#include "support/weight_average_check.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

class WeightAveragingTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string m_twoEpochSha;

  // The small MLP with a BatchNormalization (its running statistics are averaged too).
  QString project(const QString& name, double decay) {
    Json p = smallFashionMlp();
    insertAfter(p, "fc1", "bn", "BatchNormalization", Json::object());
    p["config"]["deterministic"] = true;
    p["config"]["batch_size"] = 64;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    if (decay != 0) p["optimizer"]["ema_decay"] = decay;
    return QString::fromStdString(saveProject(m_dir, name.toStdString(), p));
  }

  CliRun train(const QString& project, const QString& run, const QStringList& extra,
               const std::function<void(const Json&, QProcess&)>& onEvent = {}) {
    QStringList args{"train", project, "--events", "-", "--run-dir", m_dir.filePath(run)};
    args << extra;
    return runCli(args, 600000, onEvent);
  }

  static QStringList twoEpochs(const QString& devices) {
    return {"--devices", devices, "--max-epoch", "2", "--train-samples", "3200", "--validation-samples", "500"};
  }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // One iteration per epoch: consecutive checkpoints are one solver step apart.
  void averageOfEveryStep() {
    const QStringList steps{"--devices", "cpu:0", "--max-epoch", "3", "--train-samples", "64", "--validation-samples",
                            "500"};
    const CliRun averaged = train(project("ema", 0.9), "ema-steps", steps);
    QVERIFY2(averaged.exitCode == 0, averaged.stderrText.constData());
    const fs::path runDir = m_dir.filePath("ema-steps").toStdString();
    const std::string failure = averagesFollowWeights(runDir, 0.9);
    QVERIFY2(failure.empty(), failure.c_str());

    // The weights train as without the average: the last checkpoint's equal the plain run's result.
    const CliRun plain = train(project("plain", 0), "plain-steps", steps);
    QVERIFY2(plain.exitCode == 0, plain.stderrText.constData());
    QVERIFY(plain.parametersSha() != averaged.parametersSha());
    const auto newest = netsmith::newestValidCheckpoint((runDir / "checkpoints").string());
    QVERIFY(newest.has_value());
    const auto checkpoint = blobsOf(*newest);
    for (const auto& [name, values] : blobsOf(m_dir.filePath("plain-steps/parameters.nsparams").toStdString()))
      QVERIFY2(sameBits(checkpoint.at("param/" + name), values), name.c_str());

    // Evaluation reads the average: the error the last validation reported.
    const CliRun evaluated = runCli({"evaluate", m_dir.filePath("ema-steps"), "--samples", "500", "--json"});
    QVERIFY2(evaluated.exitCode == 0, evaluated.stderrText.constData());
    const Json result = Json::parse(evaluated.stdoutText.toStdString());
    QCOMPARE(result.at("error").get<double>(), averaged.last("epoch").at("validation_error").get<double>());
  }

  void sameOnOneAndTwoWorkers() {
    const QString file = project("ema-devices", 0.9);
    const CliRun one = train(file, "ema-one", twoEpochs("cpu:0"));
    QVERIFY2(one.exitCode == 0, one.stderrText.constData());
    m_twoEpochSha = one.parametersSha();
    QCOMPARE(m_twoEpochSha.size(), size_t{64});
    const CliRun two = train(file, "ema-two", twoEpochs("cpu:0,cpu:1"));
    QVERIFY2(two.exitCode == 0, two.stderrText.constData());
    QCOMPARE(two.parametersSha(), m_twoEpochSha);
  }

  void stopAndResumeEndsAlike() {
    QVERIFY(!m_twoEpochSha.empty());
    bool sent = false;
    const CliRun stopped = train(project("ema-devices", 0.9), "ema-stopped", twoEpochs("cpu:0"),
                                 [&](const Json& e, QProcess& p) {
                                   if (!sent && e.value("event", "") == "iteration" && e.value("global_iteration", 0) >= 20) {
                                     p.write("stop\n");
                                     sent = true;
                                   }
                                 });
    QCOMPARE(stopped.exitCode, 3);
    QCOMPARE(stopped.last("finished").value("status", ""), std::string("stopped"));
    const CliRun resumed = runCli({"train", "--resume", m_dir.filePath("ema-stopped"), "--events", "-"});
    QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
    for (const Json& w : resumed.ofKind("warning"))  // the checkpoint held the average
      QVERIFY2(w.value("message", "").find("weight average") == std::string::npos, w.dump().c_str());
    QCOMPARE(resumed.parametersSha(), m_twoEpochSha);
  }

  // A run trained without the average, then resumed with optimizer.ema_decay on (an edit the
  // resume accepts): the warning, and the first average is the checkpoint's weights moved toward
  // the next step's (one iteration per epoch, so each checkpoint is one step).
  void checkpointWithoutAverage() {
    Json p = Json::parse(std::ifstream(project("old-ckpt", 0).toStdString()));
    p["config"]["max_epoch"] = 1;
    const QString file = QString::fromStdString(saveProject(m_dir, "old-ckpt", p));
    const CliRun plain = train(file, "old-ckpt", {"--devices", "cpu:0", "--train-samples", "64", "--validation-samples", "500"});
    QVERIFY2(plain.exitCode == 0, plain.stderrText.constData());
    const std::string runProject = m_dir.filePath("old-ckpt/project.nsproj").toStdString();
    Json edited = Json::parse(std::ifstream(runProject));
    edited["config"]["max_epoch"] = 3;
    edited["optimizer"]["ema_decay"] = 0.9;
    std::ofstream(runProject) << edited.dump(1);
    const CliRun resumed = runCli({"train", "--resume", m_dir.filePath("old-ckpt"), "--accept-edited-settings", "--events", "-"});
    QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
    QCOMPARE(resumed.last("finished").value("status", ""), std::string("completed"));
    bool warned = false;
    for (const Json& w : resumed.ofKind("warning"))
      warned = warned || w.value("message", "").find("holds no weight average") != std::string::npos;
    QVERIFY2(warned, resumed.stdoutText.constData());
    const std::string failure = averagesFollowWeights(m_dir.filePath("old-ckpt").toStdString(), 0.9);
    QVERIFY2(failure.empty(), failure.c_str());
  }

  void planSaysSo() {
    const CliRun plan = runCli({"train", project("ema-plan", 0.999), "--dry-run"});
    QVERIFY2(plan.exitCode == 0, plan.stderrText.constData());
    QVERIFY2(plan.stdoutText.contains("Weights:              exponential moving average, decay 0.999"),
             plan.stdoutText.constData());
    QVERIFY(!runCli({"train", project("plain-plan", 0), "--dry-run"}).stdoutText.contains("moving average"));
    // The memory estimate counts the average as one more copy of the parameters (Note [Memory before launch]).
    auto memory = [&](const char* name, double decay) {
      const CliRun json = runCli({"train", project(name, decay), "--dry-run", "--json"});
      return Json::parse(json.stdoutText.toStdString()).at("memory").at(0);
    };
    const Json ema = memory("ema-json", 0.999), plain = memory("plain-json", 0);
    auto planJson = [&](const char* name, double decay) {
      return Json::parse(runCli({"train", project(name, decay), "--dry-run", "--json"}).stdoutText.toStdString());
    };
    QCOMPARE(planJson("ema-key", 0.999).value("ema_decay", 0.0), 0.999);
    QVERIFY(!planJson("plain-key", 0).contains("ema_decay"));
    QCOMPARE(ema.at("optimizer_state_bytes").get<int64_t>() - plain.at("optimizer_state_bytes").get<int64_t>(),
             plain.at("parameters_bytes").get<int64_t>());
  }

  void outOfRangeIsRefused() {
    for (const double bad : {1.0, 1.5, -0.1}) {
      const CliRun run = runCli({"validate", project("bad", bad)});
      QVERIFY(run.exitCode != 0);
      const QString out = QString::fromUtf8(run.stdoutText + run.stderrText);
      QVERIFY2(out.contains("optimizer.ema_decay") && out.contains("expected a number in [0, 1)"), qPrintable(out));
    }
  }
};

QTEST_GUILESS_MAIN(WeightAveragingTest)
#include "tst_weight_averaging.moc"
