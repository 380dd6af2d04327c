// Training through netsmith-cli: the run folder, stop / pause / SIGINT / kill -9 and resume
// to the same parameters_sha256 as a run never stopped, and NaN detection.
#include <signal.h>

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "engine/model/checkpoint.h"
#include "support/cli_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

class TrainResumeTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  std::string m_referenceSha;
  QRandomGenerator m_random{static_cast<quint32>(QDateTime::currentMSecsSinceEpoch())};

  // A quick real run: the MLP sample on 3,200 training and 1,000 validation images, 3 epochs.
  QStringList trainArgs(const QString& runDir) const {
    return {"train", sourcePath("projects/fashion_mnist_mlp.nsproj"), "--events", "-", "--run-dir", runDir,
            "--max-epoch", "3", "--train-samples", "3200", "--validation-samples", "1000"};
  }
  QString runDir(const QString& name) const { return m_dir.filePath(name); }

  CliRun resume(const QString& dir) { return runCli({"train", "--resume", dir, "--events", "-"}); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    qInfo() << "random seed of this test run:" << m_random.generate();
  }

  void uninterruptedRunWritesRunFolder() {
    const QString dir = runDir("reference");
    const CliRun run = runCli(trainArgs(dir));
    QCOMPARE(run.exitCode, 0);
    const Json started = run.last("started");
    QCOMPARE(started.value("iterations_per_epoch", 0), 50);
    QCOMPARE(started.value("logical_batch", 0), 64);
    QCOMPARE(run.ofKind("epoch").size(), size_t{3});
    QVERIFY(!run.ofKind("iteration").empty());
    const Json finished = run.last("finished");
    QCOMPARE(finished.value("status", ""), std::string("completed"));
    m_referenceSha = finished.value("parameters_sha256", "");
    QCOMPARE(m_referenceSha.size(), size_t{64});
    const fs::path d = dir.toStdString();
    for (const char* f : {"project.nsproj", "run.json", "events.jsonl", "learning_curve.csv", "parameters.nsparams"})
      QVERIFY2(fs::exists(d / f), f);
    std::ifstream curve(d / "learning_curve.csv");
    int lines = 0;
    for (std::string l; std::getline(curve, l);) ++lines;
    QCOMPARE(lines, 4);  // header + 3 epochs
    QVERIFY(netsmith::newestValidCheckpoint((d / "checkpoints").string()).has_value());
    // events.jsonl holds the same stream as stdout.
    std::ifstream events(d / "events.jsonl");
    int eventLines = 0;
    for (std::string l; std::getline(events, l);) ++eventLines;
    QCOMPARE(eventLines, static_cast<int>(run.events.size()));
    // Same project, same settings: bit-identical parameters.
    const CliRun again = runCli(trainArgs(runDir("reference-again")));
    QCOMPARE(again.last("finished").value("parameters_sha256", ""), m_referenceSha);
  }

  void stopAtRandomIterationThenResume() {
    QVERIFY(!m_referenceSha.empty());
    const int stopAt = 3 + static_cast<int>(m_random.bounded(140));
    qInfo() << "stopping after global iteration" << stopAt;
    const QString dir = runDir("stopped");
    bool sent = false;
    const CliRun run = runCli(trainArgs(dir), 600000, [&](const Json& e, QProcess& p) {
      if (!sent && e.value("event", "") == "iteration" && e.value("global_iteration", 0) >= stopAt) {
        p.write("stop\n");
        sent = true;
      }
    });
    QCOMPARE(run.exitCode, 3);
    QCOMPARE(run.last("finished").value("status", ""), std::string("stopped"));
    QVERIFY(!run.ofKind("checkpoint").empty());
    const CliRun resumed = resume(dir);
    QCOMPARE(resumed.exitCode, 0);
    QVERIFY(resumed.last("started").value("resumed", false));
    QCOMPARE(resumed.last("finished").value("parameters_sha256", ""), m_referenceSha);
    std::ifstream curve(fs::path(dir.toStdString()) / "learning_curve.csv");
    int lines = 0;
    for (std::string l; std::getline(curve, l);) ++lines;
    QCOMPARE(lines, 4);
  }

  void killNineAtRandomMomentThenResume() {
    QVERIFY(!m_referenceSha.empty());
    const int killAt = 1 + static_cast<int>(m_random.bounded(145));
    qInfo() << "kill -9 after global iteration" << killAt;
    const QString dir = runDir("killed");
    const CliRun run = runCli(trainArgs(dir), 600000, [&](const Json& e, QProcess& p) {
      if (e.value("event", "") == "iteration" && e.value("global_iteration", 0) >= killAt) p.kill();
    });
    QVERIFY(run.crashed);
    QVERIFY(run.ofKind("finished").empty());
    const CliRun resumed = resume(dir);
    QCOMPARE(resumed.exitCode, 0);
    QCOMPARE(resumed.last("finished").value("parameters_sha256", ""), m_referenceSha);
  }

  void sigintStopsWithCheckpoint() {
    const QString dir = runDir("sigint");
    bool sent = false;
    const CliRun run = runCli(trainArgs(dir), 600000, [&](const Json& e, QProcess& p) {
      if (!sent && e.value("event", "") == "iteration") {
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        sent = true;
      }
    });
    QVERIFY2(!run.crashed && run.exitCode == 3,
             qPrintable(QString("exit %1 crashed %2: %3").arg(run.exitCode).arg(run.crashed).arg(run.stderrText)));
    QCOMPARE(run.last("finished").value("status", ""), std::string("stopped"));
    QVERIFY(!run.ofKind("checkpoint").empty());
  }

  void pauseAndResumeLines() {
    QVERIFY(!m_referenceSha.empty());
    const QString dir = runDir("paused");
    int phase = 0;
    const CliRun run = runCli(trainArgs(dir), 600000, [&](const Json& e, QProcess& p) {
      const std::string kind = e.value("event", "");
      if (phase == 0 && kind == "iteration") {
        p.write("pause\n");
        phase = 1;
      } else if (phase == 1 && kind == "paused") {
        p.write("resume\n");
        phase = 2;
      }
    });
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.ofKind("paused").size(), size_t{1});
    QCOMPARE(run.ofKind("resumed").size(), size_t{1});
    QCOMPARE(run.last("finished").value("parameters_sha256", ""), m_referenceSha);
  }

  // A resume of a completed run trains nothing: it prints the file's hash, and run.json keeps the
  // devices that trained the run (it used to record the resume's --devices).
  void resumeOfACompletedRunChangesNothing() {
    const QString dir = runDir("reference");
    QVERIFY(!m_referenceSha.empty());
    const std::string settingsPath = (dir + "/run.json").toStdString();
    const Json before = Json::parse(std::ifstream(settingsPath));
    const CliRun again = runCli({"train", "--resume", dir, "--events", "-", "--devices", "cpu:0,cpu:1"});
    QVERIFY2(again.exitCode == 0, again.stderrText.constData());
    QVERIFY(again.ofKind("epoch").empty());
    QCOMPARE(again.last("finished").value("parameters_sha256", ""), m_referenceSha);
    const Json after = Json::parse(std::ifstream(settingsPath));
    QCOMPARE(after.value("devices", Json()), before.value("devices", Json()));
    QCOMPARE(after.value("device_changes", Json()), before.value("device_changes", Json()));
    QCOMPARE(after.value("training", Json()), before.value("training", Json()));
  }

  void nanLossStopsWithErrorAndNoNanCheckpoint() {
    // The MLP with an absurd learning rate diverges within a few iterations.
    std::ifstream in(sourcePath("projects/fashion_mnist_mlp.nsproj").toStdString());
    Json project = Json::parse(in);
    project["optimizer"] = {{"solver", "Sgd"}, {"lr", 1e12}};
    const fs::path path = fs::path(m_dir.path().toStdString()) / "diverging.nsproj";
    // Dataset paths in the sample use ${DATASETS}, so the copy reads the same data.
    std::ofstream(path) << project.dump(2);
    const QString dir = runDir("nan");
    const CliRun run = runCli({"train", QString::fromStdString(path.string()), "--events", "-", "--run-dir", dir,
                               "--train-samples", "3200", "--validation-samples", "100"});
    QCOMPARE(run.exitCode, 1);
    const Json error = run.last("error");
    const std::string message = error.value("message", "");
    QVERIFY2(message.find("iteration") != std::string::npos, message.c_str());
    QVERIFY2(message.find("learning rate") != std::string::npos, message.c_str());
    QCOMPARE(run.last("finished").value("status", ""), std::string("failed"));
    for (const auto& e : fs::directory_iterator(fs::path(dir.toStdString()) / "checkpoints")) {
      const auto data = netsmith::readCheckpoint(e.path().string());
      for (const auto& [name, t] : data.tensors)
        for (int64_t i = 0; i < t.size(); ++i) QVERIFY2(std::isfinite(t[i]), name.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TrainResumeTest)
#include "tst_train_resume.moc"
