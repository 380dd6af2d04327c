// netsmith-test-labels: asan
// netsmith-cli diff RUN_A RUN_B (Note [Run differences]) on two real, short Fashion-MNIST runs that
// differ in the learning rate, a block's width and --max-epoch: the table and --json list those
// and the runs' results (read back from each run's own learning_curve.csv, never a figure typed
// in); equal runs say "no differences"; every missing or damaged file is an error naming it.
#include <QTemporaryDir>
#include <QtTest>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/protocol/learning_curve.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

QString q(const std::string& s) { return QString::fromStdString(s); }

// The run's best validation error as its learning_curve.csv has it.
double bestError(const std::string& run) {
  const auto curve = netsmith::protocol::learningCurveFromCsv(readText(run + "/learning_curve.csv"), run);
  double best = 1e9;
  for (const auto& row : curve)
    if (row.validationError) best = std::min(best, *row.validationError);
  return best;
}

std::string percent(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%%", 100 * v);
  return buffer;
}

}  // namespace

class TestDiffCli : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  std::string m_projectA, m_projectB, m_runA, m_runB;

  std::string path(const std::string& name) const { return m_dir.filePath(q(name)).toStdString(); }

  // A copy of run A to damage.
  std::string copyOfRunA(const std::string& name) const {
    const std::string copy = path(name);
    fs::copy(m_runA, copy, fs::copy_options::recursive);
    return copy;
  }

  void expectError(const QStringList& args, const std::string& file, const QString& words) {
    const CliRun r = runCli(QStringList{"diff"} + args);
    QVERIFY2(!r.crashed, r.stderrText.constData());
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.stderrText.contains(q(file).toUtf8()), r.stderrText.constData());
    QVERIFY2(r.stderrText.contains(words.toUtf8()), r.stderrText.constData());
    QVERIFY(r.stdoutText.isEmpty());
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    Json a = smallFashionMlp();
    Json b = a;
    b["optimizer"]["lr"] = 0.02;
    b["network"]["nodes"][1]["params"]["n_outmaps"] = {32};
    m_projectA = saveProject(m_dir, "a", a);
    m_projectB = saveProject(m_dir, "b", b);
    m_runA = path("run-a");
    m_runB = path("run-b");
    const QStringList limits{"--train-samples", "256", "--validation-samples", "128", "--quiet"};
    for (const auto& [project, run, epochs] : {std::tuple{m_projectA, m_runA, "2"}, std::tuple{m_projectB, m_runB, "3"}}) {
      const CliRun r = runCli(QStringList{"train", q(project), "--run-dir", q(run), "--max-epoch", epochs} + limits);
      QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    }
  }

  void tableListsWhatDiffers() {
    const CliRun r = runCli({"diff", q(m_runA), q(m_runB)});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const std::string out = r.stdoutText.toStdString();
    const auto has = [&](const std::string& s) { return out.find(s) != std::string::npos; };
    QVERIFY2(has("A: " + m_runA + " (run, completed)"), out.c_str());
    QVERIFY(has("B: " + m_runB + " (run, completed)"));
    // Groups in order, each row `setting | A | B`.
    const size_t settings = out.find("\nSettings\n"), network = out.find("\nNetwork\n"), run = out.find("\nRun\n"),
                 result = out.find("\nResult\n");
    QVERIFY2(settings < network && network < run && run < result && result != std::string::npos, out.c_str());
    QVERIFY(has("optimizer.lr"));
    QVERIFY(has("fc1 (Affine): n_outmaps"));
    QVERIFY(has("[64]") && has("[32]"));
    QVERIFY(has("Max epoch (--max-epoch)"));
    QVERIFY(has("Epochs trained"));
    QVERIFY2(has(percent(bestError(m_runA))) && has(percent(bestError(m_runB))), out.c_str());
    // The lr row: its A and B values on its line.
    const size_t lr = out.find("optimizer.lr");
    const std::string line = out.substr(lr, out.find('\n', lr) - lr);
    QVERIFY2(line.find("0.01") != std::string::npos && line.find("0.02") != std::string::npos, line.c_str());
    QVERIFY(!has("no differences\n"));
  }

  void jsonForMachines() {
    const CliRun r = runCli({"diff", q(m_runA), q(m_runB), "--json"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const Json j = Json::parse(r.stdoutText.toStdString());
    QCOMPARE(j["equal"], Json(false));
    QCOMPARE(j["a"]["kind"], Json("run"));
    QCOMPARE(j["a"]["path"], Json(m_runA));
    QCOMPARE(j["b"]["status"], Json("completed"));
    QCOMPARE(j["settings"].size(), size_t(1));
    QCOMPARE(j["settings"][0]["path"], Json("optimizer.lr"));
    QCOMPARE(j["settings"][0]["a"], Json(0.01));
    QCOMPARE(j["settings"][0]["b"], Json(0.02));
    QCOMPARE(j["blocks"].size(), size_t(1));
    QCOMPARE(j["blocks"][0]["id"], Json("fc1"));
    QCOMPARE(j["blocks"][0]["fields"][0], Json::parse(R"({"field": "params.n_outmaps", "a": [64], "b": [32]})"));
    QVERIFY(j["links"].empty());
    std::map<std::string, Json> run, result;
    for (const Json& c : j["run"]) run[c["key"]] = c;
    for (const Json& c : j["result"]) result[c["key"]] = c;
    QCOMPARE(run.at("max_epoch")["a"], Json(2));
    QCOMPARE(run.at("max_epoch")["b"], Json(3));
    QCOMPARE(run.at("effective_lr")["b"], Json(0.02));
    QVERIFY(!run.count("train_samples"));  // the same limit on both
    QCOMPARE(result.at("epochs")["a"], Json(2));
    QCOMPARE(result.at("epochs")["b"], Json(3));
    QCOMPARE(result.at("best_validation_error")["a"].get<double>(), bestError(m_runA));
    QCOMPARE(result.at("best_validation_error")["b"].get<double>(), bestError(m_runB));
    const Json runJson = Json::parse(readText(m_runB + "/run.json"));
    QCOMPARE(result.at("parameters_sha256")["b"], runJson["result"]["parameters_sha256"]);
  }

  void equalRunsHaveNoDifferences() {
    const CliRun r = runCli({"diff", q(m_runA), q(m_runA)});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.stdoutText.endsWith("\nno differences\n"), r.stdoutText.constData());
    const CliRun j = runCli({"diff", q(m_runA), q(m_runA), "--json"});
    QCOMPARE(Json::parse(j.stdoutText.toStdString())["equal"], Json(true));
  }

  // Project files: settings and network only. A run's snapshot equals the project it trained.
  void projectFiles() {
    const CliRun r = runCli({"diff", q(m_projectA), q(m_projectB)});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const std::string out = r.stdoutText.toStdString();
    QVERIFY(out.find("(project file)") != std::string::npos);
    QVERIFY(out.find("optimizer.lr") != std::string::npos && out.find("fc1 (Affine): n_outmaps") != std::string::npos);
    QVERIFY(out.find("\nRun\n") == std::string::npos && out.find("Run and Result are compared between two run folders only") != std::string::npos);
    const CliRun j = runCli({"diff", q(m_projectA), q(m_projectB), "--json"});
    const Json json = Json::parse(j.stdoutText.toStdString());
    QVERIFY(json["run"].is_null() && json["result"].is_null());
    QCOMPARE(json["a"]["kind"], Json("project"));

    const CliRun same = runCli({"diff", q(m_runA), q(m_projectA)});
    QCOMPARE(same.exitCode, 0);
    QVERIFY2(same.stdoutText.endsWith("\nno differences\n"), same.stdoutText.constData());
  }

  void missingAndNotARun() {
    expectError({q(path("nowhere")), q(m_runB)}, path("nowhere"), "no such run folder or project file");
    expectError({q(m_runA), q(path("nowhere.nsproj"))}, path("nowhere.nsproj"), "no such run folder or project file");
    const std::string empty = path("empty");
    fs::create_directory(empty);
    expectError({q(m_runA), q(empty)}, empty, "not a run folder: it has no run.json");
    const std::string noSnapshot = copyOfRunA("no-snapshot");
    fs::remove(noSnapshot + "/project.nsproj");
    expectError({q(noSnapshot), q(m_runB)}, noSnapshot + "/project.nsproj", "missing");
  }

  void damagedFiles() {
    const std::string cut = copyOfRunA("cut-run-json");
    const std::string text = readText(cut + "/run.json");
    std::ofstream(cut + "/run.json", std::ios::trunc) << text.substr(0, text.size() / 2);
    expectError({q(cut), q(m_runB)}, cut + "/run.json", "not valid JSON at line");

    const std::string wrongType = copyOfRunA("wrong-type");
    Json record = Json::parse(readText(wrongType + "/run.json"));
    record["result"]["status"] = 5;
    std::ofstream(wrongType + "/run.json", std::ios::trunc) << record.dump();
    expectError({q(wrongType), q(m_runB)}, wrongType + "/run.json", "result.status: expected");

    const std::string notObject = copyOfRunA("not-object");
    std::ofstream(notObject + "/run.json", std::ios::trunc) << "[1, 2]";
    expectError({q(notObject), q(m_runB)}, notObject + "/run.json", "expected a JSON object");

    const std::string project = copyOfRunA("damaged-project");
    std::ofstream(project + "/project.nsproj", std::ios::trunc) << "{\"format\": \"netsmith-project\", ";
    expectError({q(m_runB), q(project)}, project + "/project.nsproj", "not valid JSON");

    const std::string badField = copyOfRunA("bad-field");
    Json snapshot = Json::parse(readText(badField + "/project.nsproj"));
    snapshot["config"]["batch_size"] = 0;
    std::ofstream(badField + "/project.nsproj", std::ios::trunc) << snapshot.dump();
    expectError({q(badField), q(m_runB)}, badField + "/project.nsproj", "config.batch_size");

    const std::string folderCurve = copyOfRunA("folder-curve");
    fs::remove(folderCurve + "/learning_curve.csv");
    fs::create_directory(folderCurve + "/learning_curve.csv");
    expectError({q(folderCurve), q(m_runB)}, folderCurve + "/learning_curve.csv", "is not a file");

    const std::string curve = copyOfRunA("damaged-curve");
    std::ofstream(curve + "/learning_curve.csv", std::ios::app) << "3,abc,,,1,0.01\n";
    expectError({q(curve), q(m_runB)}, curve + "/learning_curve.csv", "line 4");
  }

  void usage() {
    for (const QStringList& args : {QStringList{"diff"}, QStringList{"diff", q(m_runA)},
                                    QStringList{"diff", q(m_runA), q(m_runB), q(m_runB)},
                                    QStringList{"diff", q(m_runA), q(m_runB), "--no-such-option"}, QStringList{"diff", "", q(m_runB)}}) {
      const CliRun r = runCli(args);
      QVERIFY2(r.exitCode == 2, (args.join(' ') + ": " + QString::fromUtf8(r.stderrText)).toUtf8().constData());
      QVERIFY(r.stderrText.startsWith("netsmith-cli diff: "));
    }
    const CliRun help = runCli({"diff", "--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.stdoutText.contains("RUN_A RUN_B"));
    const CliRun main = runCli({"--help"});
    QVERIFY(main.stdoutText.contains("\n  diff "));
  }
};

QTEST_GUILESS_MAIN(TestDiffCli)
#include "tst_diff_cli.moc"
