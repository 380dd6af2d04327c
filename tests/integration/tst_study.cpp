// netsmith-cli sweep as a study (Note [Studies]): random and Bayesian searches of the LeNet
// sample's learning rate on two CPU workers, with weak trials stopped early; the Bayesian study
// beats the random one's median; kill -9 and --resume continue with the same trials; the time
// budget, groups of devices per trial, a layer's parameter as a setting, and the errors.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "support/cli_runner.h"
#include "support/study_folder_check.h"
#include "support/train_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

const QStringList kQuick{"--devices", "cpu:0,cpu:1", "--max-epoch", "3", "--train-samples", "1024",
                         "--validation-samples", "512"};

// The median of the trials' validation errors after their first epoch, a failed trial counting as
// 100%. Every trial that trains reaches epoch 1, so the learning rates are compared alike; best
// errors would not be: a trial stopped early at epoch 1 keeps that epoch's error.
double medianFirstEpochError(const Json& summary) {
  std::vector<double> errors;
  for (const Json& row : summary) {
    const Json& curve = row["validation_errors"];
    errors.push_back(row["status"] == "failed" || curve.empty() ? 1.0 : curve[0][1].get<double>());
  }
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  return n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
}

}  // namespace

class StudyTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  std::string lenet(const std::string& name) { return saveProject(m_dir, name, sampleProject("fashion_mnist_lenet")); }

  Json study(const std::string& project, const QStringList& extra, int expectedExit = -1) {
    const CliRun run = runCli(QStringList{"sweep", QString::fromStdString(project)} + extra + kQuick + QStringList{"--json"});
    if (expectedExit >= 0) {
      if (run.exitCode != expectedExit) qWarning("%s", run.stderrText.constData());
      [&] { QCOMPARE(run.exitCode, expectedExit); }();
    } else if (run.exitCode != 0 && run.exitCode != 1) {
      qWarning("exit %d: %s", run.exitCode, run.stderrText.constData());
      return Json();
    }
    return Json::parse(run.stdoutText.toStdString(), nullptr, false);
  }

 private slots:
  void bayesianBeatsRandomOnTheLearningRate() {
    const QStringList space{"--range", "optimizer.alpha=1e-7..10:log", "--trials", "12", "--seed", "4"};
    const Json random = study(lenet("random"), space + QStringList{"--search", "random"});
    const Json bayes = study(lenet("bayes"), space + QStringList{"--search", "bayes"});
    QCOMPARE(random.size(), size_t{12});
    QCOMPARE(bayes.size(), size_t{12});
    for (const Json* s : {&random, &bayes}) {
      int early = 0;
      std::set<std::string> devices;
      for (const Json& row : *s) {
        QVERIFY2(row["status"] == "completed" || row["status"] == "stopped_early" || row["status"] == "failed",
                 row.dump().c_str());
        devices.insert(row["device"].get<std::string>());
        const double alpha = row["settings"]["optimizer.alpha"].get<double>();
        QVERIFY(alpha >= 1e-7 && alpha <= 10);
        std::ifstream in(row["trial_project"].get<std::string>());
        QCOMPARE(Json::parse(in)["optimizer"]["alpha"].get<double>(), alpha);
        // TensorBoard's HParams view gets the trial's settings (run.json keeps what the run wrote).
        std::ifstream record(fs::path(row["run"].get<std::string>()) / "run.json");
        QCOMPARE(Json::parse(record)["hparams"]["alpha"].get<double>(), alpha);
        if (row["status"] != "stopped_early") continue;
        ++early;
        // Marked, with the rule's reason, before the last epoch; its run folder kept a checkpoint.
        QVERIFY(row["stopped_early"].get<std::string>().find("outside the best 1/3") != std::string::npos);
        QVERIFY(row["epochs"].get<int>() < 3);
        QVERIFY(fs::exists(fs::path(row["run"].get<std::string>()) / "checkpoints"));
      }
      QVERIFY2(early >= 2, qPrintable(QString("%1 trials stopped early").arg(early)));
      QCOMPARE(devices, (std::set<std::string>{"cpu:0", "cpu:1"}));
    }
    const double medianRandom = medianFirstEpochError(random), medianBayes = medianFirstEpochError(bayes);
    qInfo("median validation error after epoch 1: random %.4f, bayes %.4f", medianRandom, medianBayes);
    QVERIFY2(medianBayes < medianRandom, qPrintable(QString("bayes %1, random %2").arg(medianBayes).arg(medianRandom)));
  }

  void killedStudyResumesWithTheSameTrials() {
    const std::string project = lenet("killed");
    QProcess p;
    p.setProgram(cliPath());
    p.setArguments(QStringList{"sweep", QString::fromStdString(project), "--search", "random", "--range",
                               "optimizer.alpha=1e-4..1e-2:log", "--trials", "8", "--seed", "11"} +
                   kQuick);
    p.start();
    QVERIFY(p.waitForStarted());
    const fs::path runs = fs::path(project).parent_path() / "killed.runs";
    fs::path folder;
    // Killed once four trials were suggested and one has an epoch logged: some ended, some mid-way.
    for (int i = 0; i < 1200 && p.state() != QProcess::NotRunning; ++i) {
      p.waitForFinished(100);
      if (folder.empty() && fs::exists(runs)) folder = onlyStudyFolder(runs);
      if (!folder.empty() && logLines(folder, "trial").size() >= 4 && !logLines(folder, "epoch").empty()) break;
    }
    QVERIFY2(p.state() != QProcess::NotRunning, "the study ended before it could be killed");
    p.kill();  // SIGKILL
    p.waitForFinished();
    const auto before = logLines(folder, "trial");
    QVERIFY(logLines(folder, "ended").size() < 8);
    const CliRun resumed = runCli({"sweep", "--resume", QString::fromStdString(folder.string()), "--json"});
    QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
    const Json summary = Json::parse(resumed.stdoutText.toStdString());
    QCOMPARE(summary.size(), size_t{8});
    for (size_t i = 0; i < before.size(); ++i) QCOMPARE(summary[i]["label"], before[i]["label"]);
    for (const Json& row : summary) QVERIFY2(row["status"] == "completed" || row["status"] == "stopped_early", row.dump().c_str());
    // A random study's values depend on its seed and the trial alone: the same as a study never killed.
    const Json whole = study(lenet("whole"), {"--search", "random", "--range", "optimizer.alpha=1e-4..1e-2:log", "--trials",
                                             "8", "--seed", "11"});
    QCOMPARE(whole.size(), size_t{8});
    for (size_t i = 0; i < 8; ++i) QCOMPARE(summary[i]["settings"], whole[i]["settings"]);
    // The log has each epoch once, though a resumed trial may train an epoch again.
    std::set<std::pair<int, int>> epochs;
    for (const Json& e : logLines(folder, "epoch"))
      QVERIFY(epochs.insert({e["trial"].get<int>(), e["epoch"].get<int>()}).second);
  }

  void timeBudgetStopsTheStudy() {
    const CliRun run = runCli(QStringList{"sweep", QString::fromStdString(lenet("budget")), "--search", "random", "--range",
                                          "optimizer.alpha=1e-4..1e-2:log", "--trials", "40", "--time-budget", "3s"} +
                              kQuick);
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    QVERIFY2(run.stdoutText.contains("The time budget ran out"), run.stdoutText.constData());
    const fs::path folder = onlyStudyFolder(fs::path(m_dir.path().toStdString()) / "budget.runs");
    std::ifstream in(folder / "summary.json");
    const Json summary = Json::parse(in);
    QVERIFY(summary.size() < 40);
    for (const Json& row : summary) QVERIFY2(row["status"] != "not run", row.dump().c_str());
  }

  void trialsOnGroupsOfDevicesAndLayerSettings() {
    const Json summary = study(lenet("groups"), {"--set", "network.fc1.n_outmaps=32,64", "--devices-per-trial", "2"}, 0);
    QCOMPARE(summary.size(), size_t{2});
    for (const Json& row : summary) {
      QCOMPARE(row["device"], Json("cpu:0+cpu:1"));
      std::ifstream in(row["trial_project"].get<std::string>());
      const Json project = Json::parse(in);
      for (const Json& node : project["network"]["nodes"])
        if (node["id"] == "fc1") QCOMPARE(node["params"]["n_outmaps"], Json::array({row["settings"]["network.fc1.n_outmaps"]}));
      std::ifstream record(fs::path(row["run"].get<std::string>()) / "run.json");
      QVERIFY2(Json::parse(record).dump().find("cpu:1") != std::string::npos, "the trial's run trained on both devices");
    }
  }

  void badStudiesAreRefused() {
    const std::string project = lenet("bad");
    const auto refused = [&](const QStringList& args, const char* expected) {
      const CliRun run = runCli(args);
      QCOMPARE(run.exitCode, 2);
      QVERIFY2(run.stderrText.contains(expected), run.stderrText.constData());
    };
    const QString p = QString::fromStdString(project);
    refused({"sweep", p, "--range", "optimizer.alpha=1e-4..1e-2"}, "a grid takes listed values only");
    refused({"sweep", p, "--search", "annealing", "--range", "optimizer.alpha=1e-4..1e-2"}, "expected grid, random or bayes");
    refused({"sweep", p, "--set", "network.fc9.n_outmaps=3,4"}, "no block 'fc9'");
    refused({"sweep", p, "--search", "random", "--range", "optimizer.alpha=1..2", "--time-budget", "soon"}, "--time-budget");
    refused({"sweep", p, "--set", "optimizer.alpha=0.1", "--devices", "cpu:0", "--devices-per-trial", "2"}, "only 1 devices");
    refused({"sweep", "--resume", QString::fromStdString(m_dir.path().toStdString()), "--set", "a.b=1"}, "cannot change");
    refused({"sweep", "--resume", QString::fromStdString(m_dir.path().toStdString())}, "not a study folder");
    QVERIFY(!fs::exists(fs::path(m_dir.path().toStdString()) / "bad.runs") ||
            onlyStudyFolder(fs::path(m_dir.path().toStdString()) / "bad.runs").empty());
  }
};

QTEST_GUILESS_MAIN(StudyTest)
#include "tst_study.moc"
