// netsmith-cli sweep: four learning rates on two CPU workers, one training per device from a
// queue; four run folders and a summary that agrees with them.
#include <QDateTime>
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

  // --queue: other projects trained once each, with their own settings, after the combinations,
  // in their own runs folders; the summary names each row's project.
  void queuedProjectsTrainOnceEach() {
    Json other = sampleProject("fashion_mnist_mlp");
    other["optimizer"]["lr"] = 0.05;
    const std::string project = saveProject(m_dir, "sweep-main", sampleProject("fashion_mnist_mlp"));
    const std::string queued = saveProject(m_dir, "sweep-other", other);
    const CliRun run = runCli({"sweep", QString::fromStdString(project), "--set", "optimizer.lr=0.003,0.01", "--queue",
                               QString::fromStdString(queued), "--devices", "cpu:0,cpu:1", "--max-epoch", "1",
                               "--train-samples", "500", "--validation-samples", "200", "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const Json summary = Json::parse(run.stdoutText.toStdString());
    QCOMPARE(summary.size(), size_t{3});
    QCOMPARE(summary[0].value("project", ""), fs::path(project).string());
    const Json& last = summary[2];
    QCOMPARE(last.value("status", ""), std::string("completed"));
    QCOMPARE(last.value("label", ""), std::string("sweep-other"));
    QCOMPARE(last.value("project", ""), fs::path(queued).string());
    QVERIFY(last["settings"].empty());
    const fs::path dir = last.value("run", "");
    QCOMPARE(dir.parent_path().filename().string(), std::string("sweep-other.runs"));
    QVERIFY2(dir.filename().string().ends_with("-sweep3-sweep-other"), dir.c_str());
    std::ifstream snapshot(dir / "project.nsproj");
    QCOMPARE(Json::parse(snapshot)["optimizer"]["lr"].get<double>(), 0.05);  // its own settings

    // Only queued projects: PROJECT trains once too, labelled with its name.
    const CliRun plain = runCli({"sweep", QString::fromStdString(project), "--queue", QString::fromStdString(queued),
                                 "--devices", "cpu:0", "--max-epoch", "1", "--train-samples", "300",
                                 "--validation-samples", "100", "--json"});
    QVERIFY2(plain.exitCode == 0, plain.stderrText.constData());
    const Json two = Json::parse(plain.stdoutText.toStdString());
    QCOMPARE(two.size(), size_t{2});
    QCOMPARE(two[0].value("label", ""), std::string("sweep-main"));
    QCOMPARE(two[1].value("label", ""), std::string("sweep-other"));

    const CliRun missing = runCli({"sweep", QString::fromStdString(project), "--queue", "/nonexistent/p.nsproj"});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.stderrText.contains("--queue") && missing.stderrText.contains("/nonexistent/p.nsproj"),
             missing.stderrText.constData());
  }

  // Two sweeps of one project in the same second once shared <stamp>-sweep/ (summary and variant
  // projects overwritten). The folders of this second and the next two are taken here: the sweep
  // waits for a free second and leaves them alone.
  void aSweepClaimsAFolderOfItsOwn() {
    QTemporaryDir dir;
    const std::string project = saveProject(dir, "claim", sampleProject("fashion_mnist_mlp"));
    const fs::path runs = fs::path(project).parent_path() / "claim.runs";
    std::set<std::string> taken;
    for (int s = 0; s < 3; ++s) {
      const std::string name = QDateTime::currentDateTime().addSecs(s).toString("yyyyMMdd-HHmmss").toStdString() + "-sweep";
      fs::create_directories(runs / name);
      taken.insert(name);
    }
    const CliRun run = runCli({"sweep", QString::fromStdString(project), "--set", "optimizer.lr=0.01", "--max-epoch", "1",
                               "--train-samples", "256", "--validation-samples", "128", "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    for (const std::string& name : taken) QVERIFY2(fs::is_empty(runs / name), name.c_str());
    int sweeps = 0;
    for (const auto& e : fs::directory_iterator(runs))
      if (e.path().filename().string().ends_with("-sweep") && !taken.count(e.path().filename().string())) {
        ++sweeps;
        QVERIFY(fs::exists(e.path() / "summary.json"));
      }
    QCOMPARE(sweeps, 1);
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
