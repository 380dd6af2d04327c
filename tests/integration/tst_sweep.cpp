// netsmith-cli sweep: four learning rates on two CPU workers, one training per device from a
// queue; four run folders and a summary that agrees with them.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <set>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

class SweepTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

 private slots:
  void fourLearningRatesOnTwoWorkers() {
    QVERIFY(m_dir.isValid());
    const std::string project = saveProject(m_dir, "sweep", sampleProject("fashion_mnist_mlp"));
    const CliRun run = runCli({"sweep", QString::fromStdString(project), "--set", "optimizer.lr=0.003,0.01,0.03,0.1",
                               "--devices", "cpu:0,cpu:1", "--max-epoch", "2", "--train-samples", "1600",
                               "--validation-samples", "500", "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const Json summary = Json::parse(run.stdoutText.toStdString());
    QCOMPARE(summary.size(), size_t{4});
    std::set<std::string> devices, runs;
    const double rates[] = {0.003, 0.01, 0.03, 0.1};
    for (size_t i = 0; i < 4; ++i) {
      const Json& r = summary[i];
      QCOMPARE(r.value("status", ""), std::string("completed"));
      QCOMPARE(r["settings"]["optimizer.lr"].get<double>(), rates[i]);
      devices.insert(r.value("device", ""));
      const fs::path dir = r.value("run", "");
      runs.insert(dir.string());
      QVERIFY(fs::exists(dir / "parameters.nsparams"));
      // The run folder's own project has the swept value, and its curve the summary's figures.
      std::ifstream snapshot(dir / "project.nsproj");
      QCOMPARE(Json::parse(snapshot)["optimizer"]["lr"].get<double>(), rates[i]);
      std::ifstream curve(dir / "learning_curve.csv");
      std::string line, last;
      while (std::getline(curve, line)) last = line;
      const auto fields = QString::fromStdString(last).split(',');
      QCOMPARE(fields.size(), 6);
      QCOMPARE(fields[3].toDouble(), r["final_validation_error"].get<double>());
      QVERIFY(r.value("best_epoch", 0) >= 1 && r.value("best_epoch", 0) <= 2);
      QVERIFY(r["best_validation_error"].get<double>() <= r["final_validation_error"].get<double>());
    }
    QCOMPARE(runs.size(), size_t{4});
    QCOMPARE(devices, (std::set<std::string>{"cpu:0", "cpu:1"}));
  }

  void badSettingIsRefusedBeforeTraining() {
    const std::string project = saveProject(m_dir, "sweep-bad", sampleProject("fashion_mnist_mlp"));
    const CliRun run = runCli({"sweep", QString::fromStdString(project), "--set", "optimizer.lr=0.01,-1"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.stderrText.contains("--set lr=-1") && run.stderrText.contains("optimizer.lr"), run.stderrText.constData());
  }
};

QTEST_GUILESS_MAIN(SweepTest)
#include "tst_sweep.moc"
