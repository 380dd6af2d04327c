// Early stopping (config.early_stopping, Note [Early stopping]): the patience rule, and real runs
// through netsmith-cli that stop before max_epoch, keep the best epoch's parameters on 1 and 2
// devices in reproducible mode, train every epoch with patience 0, and keep the count across a
// stop and resume.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "engine/model/checkpoint.h"
#include "engine/train/early_stopping.h"
#include "support/cli_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

// What the rule says for these epoch events: {stop epoch (0: none), best epoch}.
std::pair<int64_t, int64_t> expectedStop(const std::vector<Json>& epochs, int64_t patience, double minDelta = 0) {
  double best = 0;
  int64_t bestEpoch = 0, waited = 0;
  for (const Json& e : epochs) {
    if (!e["validation_error"].is_number()) continue;
    const double error = e["validation_error"].get<double>();
    if (bestEpoch == 0 || error < best - minDelta) {
      best = error;
      bestEpoch = e["epoch"].get<int64_t>();
      waited = 0;
    } else if (++waited >= patience) {
      return {e["epoch"].get<int64_t>(), bestEpoch};
    }
  }
  return {0, bestEpoch};
}

// The epoch of the lowest validation error in these epoch events (the first of equals).
int64_t lowestErrorEpoch(const std::vector<Json>& epochs) {
  int64_t epoch = 0;
  double lowest = 0;
  for (const Json& e : epochs) {
    if (!e["validation_error"].is_number()) continue;
    if (epoch == 0 || e["validation_error"].get<double>() < lowest) {
      lowest = e["validation_error"].get<double>();
      epoch = e["epoch"].get<int64_t>();
    }
  }
  return epoch;
}

}  // namespace

class EarlyStoppingTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  QString m_project;

  // The MLP sample with patience 2 and a minimum improvement of 1, which no validation error
  // (a fraction of samples) can make: the first validation stays the best, and every run stops
  // at epoch 3 with epoch 1's parameters, on any CPU. (The rule with real improvements is
  // patienceRule's; a trajectory one CPU happens to produce must not decide a test.) save_best
  // off: early stopping keeps best.nsparams all the same.
  void writeProject() {
    std::ifstream in(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj");
    Json p = Json::parse(in);
    p["config"]["max_epoch"] = 8;
    p["config"]["early_stopping"] = 2;
    p["config"]["early_stopping_min_delta"] = kMinDelta;
    p["config"]["save_best"] = false;
    p["config"]["deterministic"] = true;
    p["parallel"]["lr_policy"] = "keep_logical_batch";  // the same updates on 1 and 2 devices
    m_project = m_dir.filePath("plateau.nsproj");
    std::ofstream(m_project.toStdString()) << p.dump(1);
  }
  static constexpr double kMinDelta = 1.0;

  QStringList trainArgs(const QString& runDir, const QString& samples = "512") const {
    return {"train", m_project, "--events", "-", "--run-dir", runDir, "--train-samples", samples, "--validation-samples", "200"};
  }

  static Json meta(const fs::path& file) { return netsmith::readCheckpointMeta(file.string()); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    writeProject();
  }

  void patienceRule() {
    netsmith::EarlyStopping off(0, 0);
    for (int e = 1; e <= 20; ++e) QVERIFY(!off.observe(e, 0.5));
    netsmith::EarlyStopping rule(3, 0.01);
    QVERIFY(!rule.observe(1, 0.50));
    QVERIFY(!rule.observe(2, 0.40));
    QVERIFY(!rule.observe(3, 0.395));  // not better by more than 0.01
    QVERIFY(!rule.observe(4, 0.41));
    QCOMPARE(rule.waited(), int64_t{2});
    QVERIFY(!rule.observe(5, 0.35));  // an improvement starts the count again
    QCOMPARE(rule.bestEpoch(), int64_t{5});
    QVERIFY(!rule.observe(6, 0.36));
    QVERIFY(!rule.observe(7, 0.35));
    QVERIFY(rule.observe(8, 0.345));
    QVERIFY(rule.stopped());
    QCOMPARE(QString::fromStdString(rule.message()),
             QString("stopped early at epoch 8: validation error has not improved by more than 0.01 for 3 validations "
                     "since epoch 5 (best 0.35)"));
    const Json s = rule.summary();
    QCOMPARE(s["epoch"].get<int64_t>(), int64_t{8});
    QCOMPARE(s["best_epoch"].get<int64_t>(), int64_t{5});
  }

  // Stops before max_epoch where the rule says, with status completed, and keeps the best epoch's
  // parameters: parameters.nsparams and parameters_sha256 are best.nsparams', not the last
  // checkpoint's. Two devices in reproducible mode give the same run.
  void stopsEarlyAndKeepsTheBestParameters() {
    std::string firstSha;
    for (const QString& devices : {QString("cpu:0"), QString("cpu:0,cpu:1")}) {
      const QString dir = m_dir.filePath("stop-" + QString(devices).replace(':', '_').replace(',', '-'));
      QStringList args = trainArgs(dir);
      args << "--devices" << devices;
      const CliRun run = runCli(args);
      QVERIFY2(run.exitCode == 0, run.stderrText.constData());
      const Json finished = run.last("finished");
      QCOMPARE(finished.value("status", ""), std::string("completed"));
      const auto epochs = run.ofKind("epoch");
      const auto [stopAt, bestEpoch] = expectedStop(epochs, 2, kMinDelta);
      QCOMPARE(stopAt, int64_t{3});
      QCOMPARE(bestEpoch, int64_t{1});
      QCOMPARE(static_cast<int64_t>(epochs.size()), stopAt);
      // The parameters kept are best.nsparams': the epoch with the lowest validation error (the
      // first of equals), which min_delta does not change (Note [Early stopping]).
      const int64_t keptEpoch = lowestErrorEpoch(epochs);
      const Json early = finished.value("early_stopped", Json());
      QVERIFY2(early.is_object(), finished.dump().c_str());
      QCOMPARE(early.value("epoch", int64_t{0}), stopAt);
      QCOMPARE(early.value("best_epoch", int64_t{0}), bestEpoch);
      QCOMPARE(early.value("parameters_epoch", int64_t{0}), keptEpoch);
      QVERIFY(QString::fromStdString(early.value("message", "")).startsWith(
          QString("stopped early at epoch %1: validation error has not improved by more than 1 for 2 validations since epoch %2 (best ")
              .arg(stopAt)
              .arg(bestEpoch)));
      QVERIFY(run.stdoutText.contains("\"early_stopped\""));

      const fs::path d = dir.toStdString();
      const std::string sha = finished.value("parameters_sha256", "");
      QCOMPARE(meta(d / "best.nsparams").value("parameters_sha256", ""), sha);
      QCOMPARE(meta(d / "best.nsparams").value("epoch", int64_t{0}), keptEpoch);
      QCOMPARE(meta(d / "parameters.nsparams").value("parameters_sha256", ""), sha);
      // The weights trained after the kept epoch are not the ones kept.
      const auto last = netsmith::newestValidCheckpoint((d / "checkpoints").string());
      QVERIFY(last.has_value());
      QCOMPARE(meta(*last).value("epoch", int64_t{0}), stopAt);
      if (keptEpoch < stopAt) QVERIFY(meta(*last).value("parameters_sha256", "") != sha);
      else QCOMPARE(meta(*last).value("parameters_sha256", ""), sha);
      if (firstSha.empty()) firstSha = sha;
      else QCOMPARE(sha, firstSha);
    }
  }

  // Patience 0 (here the CLI's override of the project's 2) trains every epoch.
  void patienceZeroTrainsEveryEpoch() {
    QStringList args = trainArgs(m_dir.filePath("off"));
    args << "--early-stopping" << "0" << "--max-epoch" << "5";
    const CliRun run = runCli(args);
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    QCOMPARE(run.ofKind("epoch").size(), size_t{5});
    QVERIFY(!run.last("finished").contains("early_stopped"));
    // Without the override the same run would have stopped.
    QCOMPARE(expectedStop(run.ofKind("epoch"), 2, kMinDelta).first, int64_t{3});
  }

  // A run stopped after its second validation resumes with the count it had: it ends at the same
  // epoch with the same parameters as the run never stopped.
  void resumeKeepsTheCount() {
    const CliRun reference = runCli(trainArgs(m_dir.filePath("reference"), "3200"));
    QCOMPARE(reference.exitCode, 0);
    const Json refEarly = reference.last("finished").value("early_stopped", Json());
    QVERIFY(refEarly.is_object());
    // The count is running at the stop below (2 validations done, the best before the second).
    QCOMPARE(refEarly.value("best_epoch", int64_t{0}), int64_t{1});
    QCOMPARE(refEarly.value("epoch", int64_t{0}), int64_t{3});

    const QString dir = m_dir.filePath("stopped");
    bool sent = false;
    const CliRun run = runCli(trainArgs(dir, "3200"), 600000, [&](const Json& e, QProcess& p) {
      if (!sent && e.value("event", "") == "epoch" && e.value("epoch", 0) == 2) {
        p.write("stop\n");
        sent = true;
      }
    });
    QCOMPARE(run.exitCode, 3);
    QCOMPARE(run.ofKind("epoch").size(), size_t{2});
    const CliRun resumed = runCli({"train", "--resume", dir, "--events", "-"});
    QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
    const Json finished = resumed.last("finished");
    QCOMPARE(finished.value("early_stopped", Json()).value("epoch", int64_t{0}), refEarly.value("epoch", int64_t{0}));
    QCOMPARE(finished.value("early_stopped", Json()).value("best_epoch", int64_t{0}), refEarly.value("best_epoch", int64_t{0}));
    QCOMPARE(finished.value("parameters_sha256", ""), reference.last("finished").value("parameters_sha256", ""));

    // A resume of the run that stopped early has nothing more to train: it stays stopped, and
    // run.json keeps the devices that trained it.
    const std::string settingsPath = (dir + "/run.json").toStdString();
    const Json before = Json::parse(std::ifstream(settingsPath));
    const CliRun again = runCli({"train", "--resume", dir, "--events", "-", "--devices", "cpu:0,cpu:1"});
    QCOMPARE(again.exitCode, 0);
    QVERIFY(again.ofKind("epoch").empty());
    QCOMPARE(again.last("finished").value("parameters_sha256", ""), reference.last("finished").value("parameters_sha256", ""));
    QVERIFY(again.last("finished").contains("early_stopped"));
    const Json after = Json::parse(std::ifstream(settingsPath));
    QCOMPARE(after.value("devices", Json()), before.value("devices", Json()));
    QCOMPARE(after.value("training", Json()), before.value("training", Json()));
  }

  void resumeRefusesTheOverride() {
    const CliRun run = runCli({"train", "--resume", m_dir.filePath("reference"), "--early-stopping", "3"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.stderrText.contains("--early-stopping cannot change a resumed run"));
  }
};

QTEST_GUILESS_MAIN(EarlyStoppingTest)
#include "tst_early_stopping.moc"
