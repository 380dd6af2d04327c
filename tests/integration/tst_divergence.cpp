// A run whose loss explodes ends failed, naming the iteration and the loss, the layer and pass
// where it starts (Note [Divergence diagnosis]), the largest gradient norm before it and advice,
// and keeps its last good checkpoint (Note [Divergence]): the guard's rule, then real runs through
// netsmith-cli — Adam and Sgd at learning rate 1e6 (Adam used to end "completed" with loss
// 3.2e30), and a learning rate multiplied by 1e4 after a good first epoch. The guard's decisions compare a run with its own
// start, never with figures one CPU happened to produce.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <limits>

#include "engine/train/divergence_guard.h"
#include "support/cli_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

class DivergenceTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  // The MLP sample with `optimizer` merged into its optimizer, written as NAME.nsproj.
  QString project(const QString& name, const Json& optimizer, int maxEpoch) {
    std::ifstream in(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj");
    Json p = Json::parse(in);
    if (optimizer.contains("solver")) p["optimizer"] = Json::object();
    p["optimizer"].update(optimizer);
    p["config"]["max_epoch"] = maxEpoch;
    const QString path = m_dir.filePath(name + ".nsproj");
    std::ofstream(path.toStdString()) << p.dump(1);
    return path;
  }

  static QStringList trainArgs(const QString& project, const QString& runDir) {
    return {"train", project, "--events", "-", "--run-dir", runDir, "--train-samples", "2048", "--validation-samples", "200"};
  }

 private slots:
  void guardRule() {
    using netsmith::DivergenceGuard;
    DivergenceGuard guard;
    for (int i = 0; i < 10; ++i) QVERIFY(!guard.check(2.0 - 0.1 * i));
    QVERIFY(std::abs(guard.level() - 1.55) < 1e-12);
    QVERIFY(!guard.check(900));     // worse, but below the floor
    QVERIFY(!guard.check(1500));    // above the floor, below 1000 x 1.55
    const auto exploded = guard.check(1e30);
    QVERIFY(exploded);
    QCOMPARE(*exploded, std::string("the training loss exploded to 1e+30, more than 1000 times its level at the start (1.55)"));
    QCOMPARE(*guard.check(std::numeric_limits<double>::quiet_NaN()), std::string("the training loss became nan"));
    QCOMPARE(*guard.check(std::numeric_limits<double>::infinity()), std::string("the training loss became inf"));

    // A run that had converged: a spike of orders of magnitude that stays small is no divergence.
    DivergenceGuard converged;
    for (int i = 0; i < 10; ++i) QVERIFY(!converged.check(1e-6));
    QVERIFY(!converged.check(5.0));
    // A regression loss that starts large is judged against its own level.
    DivergenceGuard large;
    for (int i = 0; i < 10; ++i) QVERIFY(!large.check(1e6));
    QVERIFY(!large.check(5e8));
    QVERIFY(large.check(2e9));
  }

  // Adam (alpha) or Sgd (lr) at 1e6 diverges in its first iterations: failed, exit 1, the error
  // names the iteration, the layer and the pass, the largest gradient norm before it and advice in
  // words; the error and finished events carry the same as their `divergence` object; run.json
  // says failed with the same message.
  void learningRate1e6Fails_data() {
    QTest::addColumn<QString>("solver");
    QTest::addColumn<QString>("key");
    QTest::newRow("Adam") << "Adam" << "alpha";
    QTest::newRow("Sgd") << "Sgd" << "lr";
  }
  void learningRate1e6Fails() {
    QFETCH(QString, solver);
    QFETCH(QString, key);
    const QString dir = m_dir.filePath(solver);
    const CliRun run =
        runCli(trainArgs(project(solver, {{"solver", solver.toStdString()}, {key.toStdString(), 1e6}}, 2), dir));
    QCOMPARE(run.exitCode, 1);
    const Json finished = run.last("finished");
    QCOMPARE(finished.value("status", ""), std::string("failed"));
    const QString message = QString::fromStdString(finished.value("message", ""));
    QVERIFY2(message.contains(QRegularExpression("the (training loss (exploded to \\S+, more than 1000 times its level at "
                                                 "the start \\(\\S+\\)|became (nan|inf|-inf))|global gradient norm "
                                                 "became (nan|inf)) at epoch 1, iteration \\d+ \\(global iteration \\d+\\)")),
             qPrintable(message));
    QVERIFY2(message.contains(QRegularExpression("it starts in the (forward|backward|parameter) pass of block "
                                                 "'(fc1|relu1|fc2|relu2|fc3|loss)'")),
             qPrintable(message));
    QVERIFY2(message.contains("lower the learning rate (now 1000000) to 100000, a tenth: optimizer." + key + " 100000"),
             qPrintable(message));
    QVERIFY2(message.contains("optimizer.clip_gradient_norm"), qPrintable(message));
    QVERIFY2(message.contains("optimizer.warmup_epochs 1"), qPrintable(message));
    QVERIFY2(message.contains("the last one is kept to resume from"), qPrintable(message));
    // The events' object says the same, field by field.
    const Json error = run.last("error");
    QCOMPARE(QString::fromStdString(error.value("message", "")), message);
    for (const Json& d : {error["divergence"], finished["divergence"]}) {
      QVERIFY2(d.is_object(), finished.dump().c_str());
      QVERIFY(message.contains(QString::fromStdString("block '" + d["block"].get<std::string>() + "'")));
      QVERIFY(d["pass"] == "forward" || d["pass"] == "backward" || d["pass"] == "parameters");
      QCOMPARE(d["epoch"].get<int64_t>(), int64_t{1});
      QVERIFY(message.contains(QString("(global iteration %1)").arg(d["global_iteration"].get<int64_t>())));
      QCOMPARE(d["learning_rate"].get<double>(), 1e6);
      QVERIFY(d["advice"].size() >= 3);
      // A step finished before the divergence (the guard needs one loss to compare with), so a
      // largest norm is known and quoted.
      QVERIFY2(d["largest_gradient_norm"].is_number(), d.dump().c_str());
      QVERIFY(message.contains("the largest gradient norm before it was"));
    }
    std::ifstream in((dir + "/run.json").toStdString());
    const Json record = Json::parse(in);
    QCOMPARE(record["result"].value("status", ""), std::string("failed"));
    QCOMPARE(QString::fromStdString(record["result"].value("message", "")), message);
  }

  // A good first epoch, then the learning rate x 1e4: the run fails in epoch 2 and keeps epoch 1's
  // checkpoint, which resumes (and fails the same way: the settings are the run's).
  void theLastGoodCheckpointStays() {
    const QString dir = m_dir.filePath("raised");
    const QString p = project("raised", {{"lr_multiplier", 1e4}, {"lr_update_interval", 32}}, 3);
    const CliRun run = runCli(trainArgs(p, dir));
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.ofKind("epoch").size(), size_t{1});
    const QString message = QString::fromStdString(run.last("finished").value("message", ""));
    QVERIFY2(message.contains(QRegularExpression("at epoch 2, iteration \\d+ \\(global iteration \\d+\\)")), qPrintable(message));
    std::vector<std::string> checkpoints;
    for (const auto& e : fs::directory_iterator((dir + "/checkpoints").toStdString()))
      checkpoints.push_back(e.path().filename().string());
    QCOMPARE(checkpoints, std::vector<std::string>{"e0001_i000000.ckpt"});
    const CliRun resumed = runCli({"train", "--resume", dir, "--events", "-"});
    QCOMPARE(resumed.exitCode, 1);
    QVERIFY(resumed.ofKind("epoch").empty());
    QVERIFY(QString::fromStdString(resumed.last("finished").value("message", "")).contains("at epoch 2"));
  }
};

QTEST_GUILESS_MAIN(DivergenceTest)
#include "tst_divergence.moc"
