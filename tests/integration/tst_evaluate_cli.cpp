// netsmith-cli evaluate and infer on a real (short) Fashion-MNIST run: evaluate agrees with the
// trainer's validation error, multi-device evaluation equals single-device exactly, best-epoch
// parameters, the evaluation folder, infer on 10 PNG files equals evaluate on the same images.
// A run on a dataset with classes.txt names its classes in every output, even once the dataset's
// file is gone (Note [Run class names]).
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/backend/cpu/cpu_precision.h"
#include "engine/data/class_names.h"
#include "engine/data/dataset.h"
#include "engine/data/npy.h"
#include "engine/project/project_io.h"
#include "engine/model/checkpoint.h"
#include "support/cli_runner.h"
#include "support/named_dataset.h"
#include "unit/dataset_test_files.h"

using namespace netsmith::test;
using netsmith::testing::writePng;
using netsmith::testing::writeText;
namespace fs = std::filesystem;

namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

// The cells after the first `skip` of a CSV line.
std::string cellsAfter(const std::string& line, int skip) {
  size_t at = 0;
  for (int i = 0; i < skip; ++i) at = line.find(',', at) + 1;
  return line.substr(at);
}

Json parseJson(const CliRun& r) { return Json::parse(r.stdoutText.toStdString()); }

// The cells of a CSV line; quoted cells may hold commas and doubled quotes.
std::vector<std::string> csvCells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') cells.back() += line[++i];
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) cells.emplace_back();
    else cells.back() += c;
  }
  return cells;
}

}  // namespace

class EvaluateCliTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;
  std::vector<Json> m_epochs;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_run = m_dir.filePath("run");
    // The LeNet sample without its dataset.class_names: these tests are about unnamed classes
    // (each is called by its number); classNamesEverywhere has named ones.
    Json sample = Json::parse(readText(sourcePath("projects/fashion_mnist_lenet.nsproj").toStdString()));
    sample["dataset"].erase("class_names");
    const QString unnamed = m_dir.filePath("lenet_unnamed.nsproj");
    std::ofstream(unnamed.toStdString()) << sample.dump(2);
    const CliRun r = runCli({"train", unnamed, "--max-epoch", "3",
                             "--train-samples", "2000", "--validation-samples", "1000", "--run-dir", m_run, "--quiet"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    std::ifstream events((m_run + "/events.jsonl").toStdString());
    for (std::string l; std::getline(events, l);) {
      const Json e = Json::parse(l);
      if (e.value("event", "") == "epoch") m_epochs.push_back(e);
    }
    QCOMPARE(m_epochs.size(), size_t{3});
  }

  void helpOfTheCommands() {
    for (const char* c : {"evaluate", "infer", "export"}) {
      const CliRun r = runCli({c, "--help"});
      QCOMPARE(r.exitCode, 0);
      QVERIFY(r.stdoutText.contains(QByteArray("Usage: netsmith-cli ") + c));
    }
    QVERIFY(runCli({"--help"}).stdoutText.contains("evaluate"));
  }

  // The trainer's last validation (same 1,000 samples, same parameters) counts the same errors.
  void evaluateAgreesWithTheTrainersValidation() {
    const CliRun r = runCli({"evaluate", m_run, "--samples", "1000", "--json"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const Json j = parseJson(r);
    QCOMPARE(j.at("samples").get<int>(), 1000);
    QCOMPARE(j.at("classes").get<int>(), 10);
    QCOMPARE(j.at("error").get<double>(), m_epochs.back().at("validation_error").get<double>());
    int64_t total = 0, diagonal = 0;
    for (size_t t = 0; t < 10; ++t)
      for (size_t p = 0; p < 10; ++p) {
        total += j["confusion_matrix"][t][p].get<int64_t>();
        if (t == p) diagonal += j["confusion_matrix"][t][p].get<int64_t>();
      }
    QCOMPARE(total, int64_t{1000});
    QCOMPARE(diagonal, j.at("correct").get<int64_t>());
    QCOMPARE(j.at("worst").size(), size_t{20});
    QVERIFY(j["worst"][0]["true_likelihood"].get<double>() <= j["worst"][19]["true_likelihood"].get<double>());
    QCOMPARE(j.at("parameters").at("which").get<std::string>(), std::string("last"));
    QCOMPARE(j.at("output_head").get<std::string>(), std::string("softmax"));
    // Fashion-MNIST's IDX files name no classes (and this copy of the sample names none): each is
    // called by its number.
    QCOMPARE(j.at("class_names").get<std::vector<std::string>>(),
             (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
    QVERIFY(j.at("class_names_file").is_null());
    QVERIFY(!fs::exists((m_run + "/classes.txt").toStdString()));
    QCOMPARE(j["per_class"][3]["name"].get<std::string>(), std::string("3"));
    QCOMPARE(j["worst"][0]["true_class_name"].get<std::string>(), std::to_string(j["worst"][0]["true_class"].get<int>()));
    for (const char* f : {"json", "report", "predictions"}) QVERIFY(fs::exists(j["files"][f].get<std::string>()));
    QCOMPARE(lines(readText(j["files"]["predictions"].get<std::string>())).size(), size_t{1001});
    QVERIFY(readText(j["files"]["report"].get<std::string>()).find("Confusion matrix") != std::string::npos);
  }

  // A run trained in bfloat16 is evaluated in bfloat16, with the trainer's primitives: its last
  // validation's error again, exactly (issue 15 item 4).
  void evaluateUsesTheRunsPrecision() {
    if (netsmith::cpu::bf16Support() != netsmith::cpu::Bf16Support::Native) QSKIP("this CPU has no bf16 instructions");
    std::ifstream in(sourcePath("projects/fashion_mnist_lenet.nsproj").toStdString());
    Json p = Json::parse(in);
    p["config"]["precision"] = "bfloat16";
    const QString project = m_dir.filePath("lenet_bf16.nsproj");
    std::ofstream(project.toStdString()) << p.dump(1);
    const QString run = m_dir.filePath("run_bf16");
    const CliRun t = runCli({"train", project, "--max-epoch", "1", "--train-samples", "1000", "--validation-samples",
                             "1000", "--run-dir", run, "--quiet"});
    QVERIFY2(t.exitCode == 0, t.stderrText.constData());
    double validationError = -1;
    std::ifstream events((run + "/events.jsonl").toStdString());
    for (std::string l; std::getline(events, l);) {
      const Json e = Json::parse(l);
      if (e.value("event", "") == "epoch") validationError = e.at("validation_error").get<double>();
    }
    const CliRun r = runCli({"evaluate", run, "--samples", "1000", "--json"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const Json j = parseJson(r);
    QCOMPARE(j.at("precision").get<std::string>(), std::string("bfloat16"));
    QCOMPARE(j.at("error").get<double>(), validationError);
  }

  // 2,500 samples in blocks of 256 (the last one short) on 1 and 3 devices: the same numbers and
  // the same likelihoods, bit for bit.
  void multiDeviceEqualsSingleDevice() {
    const CliRun one = runCli({"evaluate", m_run, "--samples", "2500", "--devices", "cpu:0", "--json"});
    QVERIFY2(one.exitCode == 0, one.stderrText.constData());
    Json a = parseJson(one);
    const std::string predictionsOne = readText(a["files"]["predictions"].get<std::string>());
    const CliRun three = runCli({"evaluate", m_run, "--samples", "2500", "--devices", "cpu:0,cpu:1,cpu:2", "--json"});
    QVERIFY2(three.exitCode == 0, three.stderrText.constData());
    Json b = parseJson(three);
    const std::string predictionsThree = readText(b["files"]["predictions"].get<std::string>());
    QCOMPARE(b.at("devices").size(), size_t{3});
    for (Json* j : {&a, &b})
      for (const char* k : {"devices", "seconds"}) j->erase(k);
    QVERIFY(a == b);
    QCOMPARE(predictionsOne.size(), predictionsThree.size());
    QVERIFY(predictionsOne == predictionsThree);
  }

  // Note [Device fallback]: a run that trained on a GPU this machine lacks is evaluated on cpu:0,
  // saying so (it used to fail advising to "train on cpu:0"); --devices naming it fails, naming it.
  void runDevicesThisMachineLacksFallBackToTheCpu() {
    const QString copy = m_dir.filePath("gpu-run");
    fs::copy(m_run.toStdString(), copy.toStdString(), fs::copy_options::recursive);
    const std::string settingsPath = (copy + "/run.json").toStdString();
    Json settings = Json::parse(std::ifstream(settingsPath));
    settings["devices"] = {"cuda:99"};
    std::ofstream(settingsPath) << settings.dump(2);
    const CliRun r = runCli({"evaluate", copy, "--samples", "500", "--json"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    QVERIFY2(r.stderrText.contains("the run trained on cuda:99, and cuda:99 cannot be used here") &&
                 r.stderrText.contains("running on cpu:0 instead (--devices chooses the devices)"),
             r.stderrText.constData());
    const Json j = parseJson(r);
    QCOMPARE(j.at("devices"), Json({"cpu:0"}));
    QVERIFY2(j.at("warnings").dump().find("cannot be used here") != std::string::npos, j.dump().c_str());
    const CliRun onCpu = runCli({"evaluate", m_run, "--samples", "500", "--devices", "cpu:0", "--json"});
    QCOMPARE(j.at("error"), parseJson(onCpu).at("error"));
    const CliRun given = runCli({"evaluate", copy, "--samples", "500", "--devices", "cuda:99"});
    QCOMPARE(given.exitCode, 1);
    QVERIFY2(given.stderrText.contains("cuda:99"), given.stderrText.constData());
    QVERIFY2(!given.stderrText.contains("train on cpu:0"), given.stderrText.constData());
  }

  // NaN or infinite inputs get no confident answer: infer flags each such sample (an error in
  // --json, which the console shows; empty CSV cells; NaN rows in .npy) and predicts the others.
  void nonFiniteInputsAreFlagged() {
    const int64_t n = 28 * 28;
    std::vector<float> values(static_cast<size_t>(3 * n), 0.25f);
    for (int64_t k = 0; k < n; ++k) values[static_cast<size_t>(n + k)] = std::nanf("");  // all NaN
    values[static_cast<size_t>(2 * n + 17)] = INFINITY;                                // one infinite pixel
    const QString npy = m_dir.filePath("nonfinite.npy");
    netsmith::writeNpy(npy.toStdString(), std::vector<int64_t>{3, 1, 28, 28}, values);
    const CliRun json = runCli({"infer", m_run, "--input", npy, "--json"});
    QVERIFY2(json.exitCode == 0, json.stderrText.constData());
    const Json j = parseJson(json);
    QCOMPARE(j.at("predicted").get<int>(), 1);
    QVERIFY(j["results"][0].contains("class") && !j["results"][0].contains("error"));
    for (int i : {1, 2}) {
      QVERIFY(!j["results"][i].contains("class"));
      QVERIFY(!j["results"][i].contains("likelihoods"));
    }
    QCOMPARE(j["results"][1].value("error", ""),
             std::string("the input holds 784 of its 784 values as NaN or infinity: no prediction is made for it"));
    QCOMPARE(j["results"][2].value("error", ""),
             std::string("the input holds 1 of its 784 values as NaN or infinity: no prediction is made for it"));

    const CliRun csv = runCli({"infer", m_run, "--input", npy});
    QCOMPARE(csv.exitCode, 0);
    const QList<QByteArray> lines = csv.stdoutText.trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    QVERIFY2(lines[2] == "nonfinite.npy[1]" + QByteArray(12, ','), lines[2].constData());
    QVERIFY(csv.stderrText.contains("nonfinite.npy[2]: the input holds 1 of its 784 values as NaN or infinity"));

    const QString out = m_dir.filePath("nonfinite-out.npy");
    QCOMPARE(runCli({"infer", m_run, "--input", npy, "--output", out}).exitCode, 0);
    const netsmith::NpyArray a = netsmith::readNpy(out.toStdString());
    QVERIFY(std::isfinite(a.values[0]));
    QVERIFY(std::isnan(a.values[10]) && std::isnan(a.values[29]));

    // Nothing but such samples: nothing predicted, exit 1.
    const QString allBad = m_dir.filePath("allnan.npy");
    netsmith::writeNpy(allBad.toStdString(), std::vector<int64_t>{1, 1, 28, 28},
                       std::vector<float>(static_cast<size_t>(n), std::nanf("")));
    QCOMPARE(runCli({"infer", m_run, "--input", allBad, "--json"}).exitCode, 1);
  }

  // config.save_best: best.nsparams holds the epoch with the lowest validation error.
  void bestEpochParameters() {
    const std::string best = (m_run + "/best.nsparams").toStdString();
    QVERIFY(fs::exists(best));
    double lowest = 1.0;
    int64_t bestEpoch = 0;
    for (const auto& e : m_epochs)
      if (e["validation_error"].get<double>() < lowest) {
        lowest = e["validation_error"].get<double>();
        bestEpoch = e["epoch"].get<int64_t>();
      }
    const Json meta = netsmith::readCheckpointMeta(best);
    QCOMPARE(meta.at("epoch").get<int64_t>(), bestEpoch);
    const CliRun r = runCli({"evaluate", m_run, "--samples", "1000", "--parameters", "best", "--json"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const Json j = parseJson(r);
    QCOMPARE(j.at("parameters").at("which").get<std::string>(), std::string("best"));
    QCOMPARE(j.at("error").get<double>(), lowest);
    QVERIFY(fs::exists((m_run + "/evaluation/validation-best/evaluation.json").toStdString()));
  }

  // The first 10 validation images as PNG files: infer on the files, evaluate on a CSV of them
  // and evaluate on the IDX set give the same classes and likelihoods.
  void inferOnTenPngFilesMatchesEvaluate() {
    const netsmith::Project project = netsmith::loadProject(sourcePath("projects/fashion_mnist_lenet.nsproj").toStdString());
    const netsmith::Dataset raw = netsmith::loadDataSource(project.dataset.validation, 1.0, "error");
    QStringList pngs;
    QByteArray csv = "x:image,y:label\n";
    QByteArray unlabelled = "x:image\n";
    for (int i = 0; i < 10; ++i) {
      const QString name = QString("img%1.png").arg(i);
      const std::vector<float> values = raw.sampleValues(i);
      const float* pixels = values.data();
      QVERIFY(writePng(m_dir.filePath(name), 28, 28, PNG_COLOR_TYPE_GRAY, 8,
                       [&](int x, int y, int) { return static_cast<int>(pixels[y * 28 + x]); }));
      pngs << m_dir.filePath(name);
      csv += name.toUtf8() + "," + QByteArray::number(static_cast<int>(raw.labels[i])) + "\n";
      unlabelled += name.toUtf8() + "\n";
    }
    writeText(m_dir.filePath("ten.csv"), csv);
    writeText(m_dir.filePath("ten_unlabelled.csv"), unlabelled);

    QStringList inferArgs{"infer", m_run, "--input"};
    inferArgs << pngs << "--output" << m_dir.filePath("infer.csv");
    const CliRun infer = runCli(inferArgs);
    QVERIFY2(infer.exitCode == 0, infer.stderrText.constData());
    const auto inferred = lines(readText(m_dir.filePath("infer.csv").toStdString()));
    QCOMPARE(inferred.size(), size_t{11});
    QVERIFY(inferred[0].rfind("input,class,class_name,likelihood_0,", 0) == 0);

    const CliRun onCsv = runCli({"evaluate", m_run, "--dataset", m_dir.filePath("ten.csv"), "--json"});
    QVERIFY2(onCsv.exitCode == 0, onCsv.stderrText.constData());
    const auto evaluated = lines(readText(parseJson(onCsv)["files"]["predictions"].get<std::string>()));
    QCOMPARE(evaluated.size(), size_t{11});
    const CliRun onIdx = runCli({"evaluate", m_run, "--samples", "10", "--json"});
    QVERIFY2(onIdx.exitCode == 0, onIdx.stderrText.constData());
    const auto idx = lines(readText(parseJson(onIdx)["files"]["predictions"].get<std::string>()));

    const CliRun unlabelledRun = runCli({"infer", m_run, "--input", m_dir.filePath("ten_unlabelled.csv")});
    QVERIFY2(unlabelledRun.exitCode == 0, unlabelledRun.stderrText.constData());
    const auto fromCsv = lines(unlabelledRun.stdoutText.toStdString());
    QCOMPARE(fromCsv.size(), size_t{11});

    for (size_t i = 1; i <= 10; ++i) {
      // infer: input,class,class_name,likelihoods...
      // evaluate: index,true,predicted,true_class_name,predicted_class_name,likelihoods...
      // Unnamed classes: a class's name is its number.
      const auto inferredCells = csvCells(inferred[i]), evaluatedCells = csvCells(evaluated[i]);
      QCOMPARE(inferredCells[2], inferredCells[1]);
      QCOMPARE(inferredCells[1], evaluatedCells[2]);
      QCOMPARE(evaluatedCells[4], evaluatedCells[2]);
      QCOMPARE(cellsAfter(inferred[i], 3), cellsAfter(evaluated[i], 5));
      QCOMPARE(csvCells(idx[i])[2], inferredCells[1]);
      QCOMPARE(cellsAfter(inferred[i], 3), cellsAfter(idx[i], 5));
      QCOMPARE(cellsAfter(fromCsv[i], 1), cellsAfter(inferred[i], 1));
      QVERIFY(inferred[i].rfind(pngs[static_cast<int>(i - 1)].toStdString(), 0) == 0);
    }
  }

  // Note [Run class names]: a dataset with classes.txt. The run keeps the names (RUN/classes.txt);
  // evaluate's JSON (class_names, per_class, worst), report and predictions.csv and infer's CSV
  // carry them, quoted where they hold a comma or a quote, also once the dataset's classes.txt
  // is gone; a dataset naming the classes otherwise is warned about; a classes.txt with fewer
  // names than labels is an error naming it.
  void classNamesEverywhere() {
    const NamedDataset d = writeNamedDataset(m_dir.filePath("named"));
    const QString run = m_dir.filePath("run-named");
    const CliRun t = runCli({"train", d.project, "--run-dir", run, "--quiet"});
    QVERIFY2(t.exitCode == 0, t.stderrText.constData());
    const std::string runNames = (run + "/classes.txt").toStdString();
    QCOMPARE(netsmith::readClassNames(runNames), d.names);

    const CliRun r = runCli({"evaluate", run, "--json"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const Json j = parseJson(r);
    QCOMPARE(j.at("classes").get<size_t>(), size_t{3});
    QCOMPARE(j.at("class_names").get<std::vector<std::string>>(), d.names);
    QCOMPARE(j.at("class_names_file").get<std::string>(), runNames);
    QVERIFY(j.at("warnings").empty());
    for (size_t c = 0; c < 3; ++c) QCOMPARE(j["per_class"][c]["name"].get<std::string>(), d.names[c]);
    QVERIFY(!j.at("worst").empty());  // the mislabelled samples at least
    for (const Json& w : j["worst"]) {
      QCOMPARE(w.at("true_class_name").get<std::string>(), d.names[w.at("true_class").get<size_t>()]);
      QCOMPARE(w.at("predicted_class_name").get<std::string>(), d.names[w.at("predicted_class").get<size_t>()]);
    }
    const std::string report = readText(j["files"]["report"].get<std::string>());
    const std::string matrix = report.substr(report.find("Confusion matrix"));
    for (const auto& n : d.names) {
      QVERIFY2(report.find("  " + n) != std::string::npos, report.c_str());  // per-class table and worst samples
      QVERIFY2(matrix.find("\n  " + n) != std::string::npos, matrix.c_str());  // a row of the matrix
    }
    const auto predictions = lines(readText(j["files"]["predictions"].get<std::string>()));
    QCOMPARE(predictions[0], std::string("index,true_class,predicted_class,true_class_name,predicted_class_name,"
                                         "likelihood_0,likelihood_1,likelihood_2"));
    QCOMPARE(predictions.size(), size_t{1 + 45});
    QVERIFY(predictions[1].find(",\"T-shirt, top\",") != std::string::npos);  // quoted
    for (size_t i = 1; i < predictions.size(); ++i) {
      const auto cells = csvCells(predictions[i]);
      QCOMPARE(cells.size(), size_t{8});
      QCOMPARE(cells[3], d.names[std::stoul(cells[1])]);
      QCOMPARE(cells[4], d.names[std::stoul(cells[2])]);
    }

    // The dataset's classes.txt gone: the run still knows the names.
    QVERIFY(QFile::rename(d.classesFile, d.classesFile + ".moved"));
    const QString inferred = m_dir.filePath("named-infer.csv");
    const CliRun infer = runCli({"infer", run, "--input", d.validation, "--output", inferred});
    QVERIFY2(infer.exitCode == 0, infer.stderrText.constData());
    const auto rows = lines(readText(inferred.toStdString()));
    QCOMPARE(rows[0], std::string("input,class,class_name,likelihood_0,likelihood_1,likelihood_2"));
    QCOMPARE(rows.size(), predictions.size());
    std::set<std::string> seen;
    for (size_t i = 1; i < rows.size(); ++i) {
      const auto cells = csvCells(rows[i]);
      QCOMPARE(cells.size(), size_t{6});
      QCOMPARE(cells[2], d.names[std::stoul(cells[1])]);
      QCOMPARE(cells[1], csvCells(predictions[i])[2]);  // evaluate's prediction of the same image
      seen.insert(cells[2]);
    }
    QVERIFY(seen.size() > 1);
    const CliRun again = runCli({"evaluate", run, "--json"});
    QVERIFY2(again.exitCode == 0, again.stderrText.constData());
    QCOMPARE(parseJson(again).at("class_names").get<std::vector<std::string>>(), d.names);

    // A dataset that calls class 1 otherwise: the run's names, and a warning naming both files.
    const NamedDataset renamed = writeNamedDataset(m_dir.filePath("renamed"), 2);
    writeText(renamed.classesFile, "T-shirt, top\nPants\nSandale \xC3\xA9\n");
    const CliRun other = runCli({"evaluate", run, "--dataset", renamed.validation, "--json"});
    QVERIFY2(other.exitCode == 0, other.stderrText.constData());
    const Json o = parseJson(other);
    QCOMPARE(o.at("class_names").get<std::vector<std::string>>(), d.names);
    QCOMPARE(o.at("warnings").size(), size_t{1});
    const std::string warning = o["warnings"][0].get<std::string>();
    QVERIFY2(warning.find(renamed.classesFile.toStdString()) != std::string::npos && warning.find(runNames) != std::string::npos &&
                 warning.find("class 1 is 'Pants'") != std::string::npos,
             warning.c_str());
    QVERIFY(other.stderrText.contains("warning: "));

    // Fewer names than labels: an error naming the file.
    const NamedDataset shortNames = writeNamedDataset(m_dir.filePath("short"), 2);
    writeText(shortNames.classesFile, "T-shirt, top\nTrouser\n");
    const CliRun bad = runCli({"evaluate", run, "--dataset", shortNames.validation});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.stderrText.contains(shortNames.classesFile.toUtf8()), bad.stderrText.constData());
    const CliRun badTrain = runCli({"train", shortNames.project, "--run-dir", m_dir.filePath("run-short"), "--quiet"});
    QCOMPARE(badTrain.exitCode, 1);
    QVERIFY2(badTrain.stderrText.contains(shortNames.classesFile.toUtf8()), badTrain.stderrText.constData());
  }

  // Note [Initial parameters]: a project whose config.initial_parameters names a run folder
  // predicts with the folder's parameters.nsparams, else its best.nsparams, as training starts
  // from them (initialParametersFile); a folder with neither is an error naming it.
  void inferProjectWithARunFolderAsInitialParameters() {
    const netsmith::Project source = netsmith::loadProject(sourcePath("projects/fashion_mnist_lenet.nsproj").toStdString());
    const netsmith::Dataset raw = netsmith::loadDataSource(source.dataset.validation, 1.0, "error");
    QStringList pngs;
    for (int i = 0; i < 4; ++i) {
      const QString name = m_dir.filePath(QString("folder-source%1.png").arg(i));
      const std::vector<float> values = raw.sampleValues(20 + i);
      QVERIFY(writePng(name, 28, 28, PNG_COLOR_TYPE_GRAY, 8, [&](int x, int y, int) { return static_cast<int>(values[y * 28 + x]); }));
      pngs << name;
    }
    const auto inferWith = [&](const QString& target, const QStringList& extra = {}) {
      QStringList args{"infer", target, "--input"};
      args << pngs << extra;
      return runCli(args);
    };
    const auto projectFrom = [&](const QString& name, const QString& initial) {
      netsmith::Project p = netsmith::loadProject((m_run + "/project.nsproj").toStdString());
      p.config.initialParameters = initial.toStdString();
      const QString path = m_dir.filePath(name);
      netsmith::saveProject(p, path.toStdString());
      return path;
    };

    const CliRun fromRun = inferWith(m_run);
    QVERIFY2(fromRun.exitCode == 0, fromRun.stderrText.constData());
    QCOMPARE(lines(fromRun.stdoutText.toStdString()).size(), size_t{5});
    const CliRun fromFolder = inferWith(projectFrom("from-run-folder.nsproj", m_run));
    QVERIFY2(fromFolder.exitCode == 0, fromFolder.stderrText.constData());
    QCOMPARE(fromFolder.stdoutText, fromRun.stdoutText);

    // A folder holding only best.nsparams: its best parameters.
    const QString onlyBest = m_dir.filePath("only-best");
    QVERIFY(QDir().mkpath(onlyBest));
    QVERIFY(QFile::copy(m_run + "/best.nsparams", onlyBest + "/best.nsparams"));
    const CliRun bestOfRun = inferWith(m_run, {"--parameters", "best"});
    QVERIFY2(bestOfRun.exitCode == 0, bestOfRun.stderrText.constData());
    const CliRun fromBest = inferWith(projectFrom("from-best.nsproj", onlyBest));
    QVERIFY2(fromBest.exitCode == 0, fromBest.stderrText.constData());
    QCOMPARE(fromBest.stdoutText, bestOfRun.stdoutText);

    const QString empty = m_dir.filePath("no-parameters");
    QVERIFY(QDir().mkpath(empty));
    const QString emptyProject = projectFrom("from-empty.nsproj", empty);
    const CliRun none = inferWith(emptyProject);
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.stderrText.contains("has no parameters.nsparams or best.nsparams"), none.stderrText.constData());
    QVERIFY2(none.stderrText.contains(emptyProject.toUtf8()), none.stderrText.constData());
  }

  void errorsNameWhatIsWrong() {
    const CliRun missing = runCli({"evaluate", m_dir.filePath("no-such-run")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.stderrText.contains("no-such-run: no such run folder"));
    QCOMPARE(runCli({"evaluate", m_run, "--parameters", "worst"}).exitCode, 2);
    const CliRun badCsv = runCli({"evaluate", m_run, "--dataset", m_dir.filePath("nothing.csv")});
    QCOMPARE(badCsv.exitCode, 1);
    QVERIFY2(badCsv.stderrText.contains("nothing.csv"), badCsv.stderrText.constData());
    const CliRun noInput = runCli({"infer", m_run});
    QCOMPARE(noInput.exitCode, 2);
    QVERIFY(noInput.stderrText.contains("--input"));
    const CliRun badPng = runCli({"infer", m_run, "--input", m_dir.filePath("ten.csv"), m_dir.filePath("img0.png")});
    QCOMPARE(badPng.exitCode, 2);
  }
};

QTEST_GUILESS_MAIN(EvaluateCliTest)
#include "tst_evaluate_cli.moc"
