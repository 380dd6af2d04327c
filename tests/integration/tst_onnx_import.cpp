// netsmith-cli import (Note [ONNX import]): Netsmith models trained briefly, exported to ONNX and
// imported again give the same outputs as the run they came from (max abs difference <= 1e-5, by
// `infer` on the run folder and on the imported project with the same .npy inputs); the project
// names its parameters in config.initial_parameters; an operator with no Netsmith layer is an
// error naming the node and its op type, and nothing is written; training starts from the
// imported parameters, and a parameter of another shape is re-initialised and reported with the
// layer and both shapes. Opsets: each exported model is also converted to opsets 11 and 17 (onnx.version_converter,
// Debian's python3-onnx) and imported with the same outputs; small models made with onnx.helper at
// opsets 18 and 11 (ReduceMean, Resize linear and nearest, Transpose, Split, Slice with a step) give
// PyTorch's and onnxruntime's outputs (tests/support/onnx_opsets.py; onnxruntime from the test
// command's virtual environment, Note [Test Python]: without it the comparison with it is skipped,
// saying so); a Transpose that moves the batch axis is refused saying so.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/data/npy.h"
#include "engine/project/project_io.h"
#include "engine/model/checkpoint.h"
#include "support/cli_runner.h"
#include "support/test_python.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

constexpr double kRoundTripTolerance = 1e-5;

struct PyRun {
  int exitCode = -1;
  QString output;
};

PyRun opsetsScript(const QString& python, const QStringList& args) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(python, QStringList{sourcePath("tests/support/onnx_opsets.py")} + args);
  p.waitForFinished(600000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll()).trimmed()};
}

double maxAbsDifference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
  return worst;
}

Json node(const std::string& id, const std::string& type, Json params = Json::object()) {
  return {{"id", id}, {"type", type}, {"params", std::move(params)}};
}

Json chain(Json project, const std::string& name, const std::vector<Json>& nodes,
           const std::vector<std::pair<const char*, const char*>>& links) {
  project["name"] = name;
  project["network"]["nodes"] = nodes;
  Json l = Json::array();
  for (auto [from, to] : links) l.push_back({{"from", from}, {"to", to}});
  project["network"]["links"] = l;
  return project;
}

// Every layer type the importer maps, with the exporter's less obvious forms: pooling in ceil
// mode (asymmetric ONNX pads), average pooling over a window past the padded input (a Pad before
// it), Affine on base_axis 2 (Reshape, MatMul, Add, Reshape), Swish and Mish (patterns of several
// ONNX nodes), ReLU6 (Clip), a branch joined by Concatenate and Add2.
Json layerZoo() {
  return chain(sampleProject("fashion_mnist_lenet"), "import zoo",
               {node("x", "Input", {{"shape", {1, 28, 28}}}),
                node("c1", "Convolution", {{"outmaps", 4}, {"kernel", {3, 3}}, {"pad", {1, 1}}}),
                node("bn1", "BatchNormalization"), node("e1", "ELU", {{"alpha", 0.7}}),
                node("ap", "AveragePooling", {{"kernel", {3, 3}}, {"stride", {2, 2}}, {"pad", {1, 1}}, {"ignore_border", false}}),
                node("ap2", "AveragePooling", {{"kernel", {3, 3}}, {"stride", {1, 1}}, {"pad", {1, 1}}, {"including_pad", false}}),
                node("dc", "Deconvolution", {{"outmaps", 4}, {"kernel", {3, 3}}, {"stride", {2, 2}}, {"pad", {1, 1}}}),
                node("lr", "LeakyReLU", {{"alpha", 0.2}}),
                node("mp", "MaxPooling", {{"kernel", {3, 3}}, {"stride", {2, 2}}, {"ignore_border", false}}),
                node("sw", "Swish"), node("th", "Tanh"), node("cat", "Concatenate", {{"axis", 0}}),
                node("sm", "Softmax", {{"axis", 0}}), node("add", "Add2"), node("r6", "ReLU6"),
                node("pr", "PReLU", {{"shared", false}}), node("se", "SELU"), node("sp", "SoftPlus"),
                node("hs", "HardSwish"), node("hsg", "HardSigmoid"), node("mi", "Mish"),
                node("gap", "GlobalAveragePooling"), node("rs", "Reshape", {{"shape", {2, 4}}}),
                node("fc1", "Affine", {{"n_outmaps", {6}}, {"base_axis", 2}}), node("sg", "Sigmoid"),
                node("do", "Dropout", {{"p", 0.2}}), node("fl", "Flatten"), node("fc2", "Affine", {{"n_outmaps", {10}}}),
                node("y", "SoftmaxCrossEntropy")},
               {{"x", "c1"},   {"c1", "bn1"},  {"bn1", "e1"},  {"e1", "ap"},   {"ap", "ap2"},   {"ap2", "dc"},
                {"dc", "lr"},  {"lr", "mp"},   {"mp", "sw"},   {"mp", "th"},   {"sw", "cat"},   {"th", "cat"},
                {"cat", "sm"}, {"sm", "add"},  {"cat", "add"}, {"add", "r6"},  {"r6", "pr"},    {"pr", "se"},
                {"se", "sp"},  {"sp", "hs"},   {"hs", "hsg"},  {"hsg", "mi"},  {"mi", "gap"},   {"gap", "rs"},
                {"rs", "fc1"}, {"fc1", "sg"},  {"sg", "do"},   {"do", "fl"},   {"fl", "fc2"},   {"fc2", "y"}});
}

// A regression head (SquaredError: identity output head) and a GELU, which ONNX writes with Erf.
Json withLoss(const std::string& loss, const std::string& activation = {}) {
  std::vector<Json> nodes{node("x", "Input", {{"shape", {1, 28, 28}}}), node("fc", "Affine", {{"n_outmaps", {10}}})};
  std::vector<std::pair<const char*, const char*>> links{{"x", "fc"}};
  const char* last = "fc";
  if (!activation.empty()) {
    nodes.push_back(node("act", activation, activation == "GELU" ? Json{{"approximate", "none"}} : Json::object()));
    links.emplace_back("fc", "act");
    last = "act";
  }
  nodes.push_back(node("loss", loss));
  links.emplace_back(last, "loss");
  return chain(sampleProject("fashion_mnist_mlp"), "loss " + loss, nodes, links);
}

// N random (1, 28, 28) images in [0, 1), written as a float32 .npy.
void writeInputs(const std::string& path, int64_t n) {
  std::vector<float> values(static_cast<size_t>(n * 28 * 28));
  uint32_t state = 12345;
  for (float& v : values) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / static_cast<float>(1 << 24);
  }
  const std::vector<int64_t> shape{n, 1, 28, 28};
  writeNpy(path, shape, values);
}

std::vector<float> readValues(const std::string& path, std::vector<int64_t>* shape = nullptr) {
  NpyArray a = readNpy(path);
  if (shape) *shape = a.shape;
  return a.values;
}

}  // namespace

class OnnxImportTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_inputs;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  // Trains `project` briefly and exports it; returns the run folder ("" on failure, with a QFAIL).
  QString trainAndExport(const std::string& name, const Json& project, const QString& model) {
    const std::string file = saveProject(m_dir, name, project);
    const QString run = path("run-" + QString::fromStdString(name));
    const CliRun train = runCli({"train", QString::fromStdString(file), "--max-epoch", "1", "--train-samples", "256",
                                 "--validation-samples", "64", "--run-dir", run, "--quiet"});
    if (train.exitCode != 0) qWarning("%s", train.stderrText.constData());
    const CliRun exported = runCli({"export", run, "--onnx", model});
    if (exported.exitCode != 0) qWarning("%s", exported.stderrText.constData());
    return train.exitCode == 0 && exported.exitCode == 0 ? run : QString();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_inputs = path("inputs.npy");
    writeInputs(m_inputs.toStdString(), 8);
  }

  void roundTripGivesTheSameOutputs_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"fashion_mnist_lenet", "fashion_mnist_mlp", "fashion_mnist_resnet", "layer_zoo", "loss_SquaredError",
                          "loss_SigmoidCrossEntropy"})
      QTest::newRow(n) << n;
  }
  void roundTripGivesTheSameOutputs() {
    QFETCH(QString, name);
    const std::string n = name.toStdString();
    const Json project = n == "layer_zoo"                 ? layerZoo()
                         : n.rfind("loss_", 0) == 0        ? withLoss(n.substr(5))
                                                           : sampleProject(n);
    const QString model = path(name + ".onnx");
    const QString run = trainAndExport(n, project, model);
    QVERIFY(!run.isEmpty());

    const QString imported = path("imported/" + name + ".nsproj");
    const CliRun import = runCli({"import", model, "--output", imported, "--json"});
    QVERIFY2(import.exitCode == 0, import.stderrText.constData());
    const Json summary = Json::parse(import.stdoutText.toStdString());
    // The loss comes back: a Softmax or Sigmoid head becomes its cross-entropy again.
    QCOMPARE(QString::fromStdString(summary["loss"].get<std::string>()),
             QString::fromStdString(n == "loss_SquaredError" ? "SquaredError"
                                    : n == "loss_SigmoidCrossEntropy" ? "SigmoidCrossEntropy"
                                                                      : "SoftmaxCrossEntropy"));
    const Project p = loadProject(imported.toStdString());
    QCOMPARE(QString::fromStdString(p.config.initialParameters), path("imported/" + name + ".nsparams"));
    QVERIFY(QFileInfo::exists(path("imported/" + name + ".nsparams")));
    // Same number of parameter values as the run's parameters (running statistics included).
    int64_t runValues = 0;
    for (const auto& [blob, t] : readCheckpoint((run + "/parameters.nsparams").toStdString()).tensors) runValues += t.size();
    QCOMPARE(summary["parameter_values"].get<int64_t>(), runValues);

    const QString fromRun = path(name + "-run.npy"), fromImport = path(name + "-imported.npy");
    const CliRun a = runCli({"infer", run, "--input", m_inputs, "--output", fromRun});
    QVERIFY2(a.exitCode == 0, a.stderrText.constData());
    const CliRun b = runCli({"infer", imported, "--input", m_inputs, "--output", fromImport});
    QVERIFY2(b.exitCode == 0, b.stderrText.constData());
    std::vector<int64_t> shapeA, shapeB;
    const std::vector<float> ya = readValues(fromRun.toStdString(), &shapeA), yb = readValues(fromImport.toStdString(), &shapeB);
    QCOMPARE(shapeA, shapeB);
    const double worst = maxAbsDifference(ya, yb);
    qInfo("%s: max abs difference %.3g over %zu outputs", qPrintable(name), worst, ya.size());
    QVERIFY2(worst <= kRoundTripTolerance, qPrintable(QString("max abs difference %1").arg(worst)));

    // The same model at PyTorch 1.13's lowest and highest opsets: each operator's form there
    // (Squeeze, Unsqueeze and Split axes, Softmax's axis, Clip's bounds, Dropout's ratio) imports
    // to the same network.
    for (int opset : {11, 17}) {
      const QString tag = QString("%1-opset%2").arg(name).arg(opset);
      const QString converted = path(tag + ".onnx");
      const PyRun c = opsetsScript("/usr/bin/python3", {"convert", model, converted, QString::number(opset)});
      QVERIFY2(c.exitCode == 0, qPrintable(c.output));
      const QString project = path("imported/" + tag + ".nsproj"), values = path(tag + "-imported.npy");
      const CliRun i = runCli({"import", converted, "--output", project});
      QVERIFY2(i.exitCode == 0, i.stderrText.constData());
      QVERIFY2(i.stdoutText.contains(QString("(opset %1,").arg(opset).toUtf8()), i.stdoutText.constData());
      const CliRun r = runCli({"infer", project, "--input", m_inputs, "--output", values});
      QVERIFY2(r.exitCode == 0, r.stderrText.constData());
      const std::vector<float> yc = readValues(values.toStdString());
      QCOMPARE(yc.size(), ya.size());
      const double d = maxAbsDifference(ya, yc);
      qInfo("%s: max abs difference %.3g (%s)", qPrintable(tag), d, qPrintable(c.output));
      QVERIFY2(d <= kRoundTripTolerance, qPrintable(QString("%1: max abs difference %2").arg(tag).arg(d)));
    }
  }

  // Opset 18's forms (ReduceMean's axes as an input, Split by num_outputs) and opset 11's, with
  // Resize (linear pytorch_half_pixel and nearest asymmetric floor), a Transpose of per-sample
  // axes and a Slice with a step, against PyTorch's functions and onnxruntime.
  void handMadeOpsetModels() {
    const QString python = testPython();
    const QString dir = path("handmade");
    QVERIFY(QDir().mkpath(dir));
    const PyRun made = opsetsScript(python, {"handmade", dir});
    if (made.exitCode == 77) QSKIP(qPrintable(made.output));
    QVERIFY2(made.exitCode == 0, qPrintable(made.output));
    QStringList withoutOrt;
    for (const char* m : {"resize_split_opset18", "resize_split_opset11", "tf_style_opset13"}) {
      const QString base = dir + "/" + m;
      const CliRun i = runCli({"import", base + ".onnx", "--output", base + "-imported/" + m + ".nsproj"});
      QVERIFY2(i.exitCode == 0, i.stderrText.constData());
      const CliRun r = runCli({"infer", base + "-imported/" + m + ".nsproj", "--input", base + "-x.npy", "--output",
                               base + "-netsmith.npy"});
      QVERIFY2(r.exitCode == 0, r.stderrText.constData());
      const std::vector<float> y = readValues((base + "-netsmith.npy").toStdString());
      for (const char* peer : {"torch", "ort"}) {
        const QString file = base + "-" + peer + ".npy";
        if (!QFileInfo::exists(file)) {
          QVERIFY2(QString(peer) == "ort", "PyTorch's reference outputs are missing");
          withoutOrt << m;
          qWarning("%s: NOT compared with onnxruntime (%s): compared with PyTorch only", m, qPrintable(made.output));
          continue;
        }
        const std::vector<float> ref = readValues(file.toStdString());
        QCOMPARE(y.size(), ref.size());
        const double d = maxAbsDifference(y, ref);
        qInfo("%s vs %s: max abs difference %.3g over %zu values", m, peer, d, y.size());
        QVERIFY2(d <= kRoundTripTolerance, qPrintable(QString("%1 vs %2: %3").arg(m, peer).arg(d)));
      }
    }
    const CliRun refused = runCli({"import", dir + "/transpose_batch_opset13.onnx", "--output", dir + "/refused/t.nsproj"});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.stderrText.contains("node 'Transpose_0' (op Transpose)") &&
                 refused.stderrText.contains("perm (1, 0, 2, 3): it moves the batch axis"),
             refused.stderrText.constData());
    QVERIFY(!QFileInfo::exists(dir + "/refused/t.nsproj"));
    if (!withoutOrt.isEmpty())
      QSKIP(qPrintable(QString("onnxruntime is missing (%1): %2 NOT compared with onnxruntime, only with PyTorch; "
                               "installer/test.sh installs it into build/test-venv (Note [Test Python])")
                           .arg(made.output, withoutOrt.join(", "))));
  }

  // GELU (exact) exports with Erf, which no Netsmith layer computes: the error names the node and
  // the op type, and neither file appears.
  void unknownOperatorIsAnErrorAndWritesNothing() {
    const QString model = path("gelu.onnx");
    QVERIFY(!trainAndExport("gelu", withLoss("SoftmaxCrossEntropy", "GELU"), model).isEmpty());
    const QString out = path("refused/gelu.nsproj");
    const CliRun import = runCli({"import", model, "--output", out});
    QCOMPARE(import.exitCode, 1);
    const QString message = QString::fromUtf8(import.stderrText);
    QVERIFY2(message.contains(model) && message.contains("node 'act/erf' (op Erf): no Netsmith layer computes Erf"),
             qPrintable(message));
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY(!QFileInfo::exists(path("refused/gelu.nsparams")));
    QVERIFY(!QFileInfo::exists(path("refused")) || QDir(path("refused")).isEmpty());
  }

  // An existing project is not replaced without --force; --loss picks the loss.
  void existingFilesAndLossOption() {
    const QString model = path("mlp2.onnx");
    QVERIFY(!trainAndExport("mlp2", sampleProject("fashion_mnist_mlp"), model).isEmpty());
    const QString out = path("twice/mlp.nsproj");
    QCOMPARE(runCli({"import", model, "--output", out}).exitCode, 0);
    const CliRun again = runCli({"import", model, "--output", out});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.stderrText.contains("already exists"), again.stderrText.constData());
    const CliRun forced = runCli({"import", model, "--output", out, "--force", "--loss", "SquaredError", "--json"});
    QVERIFY2(forced.exitCode == 0, forced.stderrText.constData());
    // With SquaredError the final Softmax stays a layer, and infer gives its values.
    QCOMPARE(QString::fromStdString(Json::parse(forced.stdoutText.toStdString())["loss"].get<std::string>()),
             QString("SquaredError"));
    const CliRun bad = runCli({"import", model, "--output", out, "--force", "--loss", "Affine"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.stderrText.contains("'Affine' is not a loss"), bad.stderrText.constData());
  }

  // Note [Initial parameters]: a run of the imported project starts from its parameters (with a
  // learning rate of 1e-12 they come out as they went in; from the initialisers they would not),
  // and a layer whose parameters have another shape is refused naming the layer and both shapes.
  void trainingStartsFromTheInitialParameters() {
    const QString model = path("mlp3.onnx");
    QVERIFY(!trainAndExport("mlp3", sampleProject("fashion_mnist_mlp"), model).isEmpty());
    const QString imported = path("tune/mlp.nsproj");
    const CliRun import = runCli({"import", model, "--output", imported});
    QVERIFY2(import.exitCode == 0, import.stderrText.constData());
    std::ifstream in(imported.toStdString());
    Json project = Json::parse(in);
    project["dataset"] = sampleProject("fashion_mnist_mlp")["dataset"];
    project["optimizer"] = {{"solver", "Sgd"}, {"lr", 1e-12}};
    std::ofstream(imported.toStdString()) << project.dump(1);
    const QString run = path("tune-run");
    const CliRun train = runCli({"train", imported, "--max-epoch", "1", "--train-samples", "64", "--validation-samples",
                                 "32", "--run-dir", run, "--quiet"});
    QVERIFY2(train.exitCode == 0, train.stderrText.constData());
    const CheckpointData before = readCheckpoint(path("tune/mlp.nsparams").toStdString());
    const CheckpointData after = readCheckpoint((run + "/parameters.nsparams").toStdString());
    QCOMPARE(after.tensors.size(), before.tensors.size());
    double worst = 0;
    for (const auto& [name, t] : before.tensors) {
      const auto it = std::find_if(after.tensors.begin(), after.tensors.end(), [&](const auto& x) { return x.first == name; });
      QVERIFY2(it != after.tensors.end() && it->second.shape() == t.shape(), name.c_str());
      for (int64_t i = 0; i < t.size(); ++i) worst = std::max(worst, std::fabs(double(t[i]) - double(it->second[i])));
    }
    QVERIFY2(worst < 1e-6, qPrintable(QString("parameters moved by %1").arg(worst)));

    // The first Affine made wider than its parameters (Note [Initial parameters]): its W is
    // re-initialised and the initial_parameters event names both shapes; the rest is loaded.
    std::string wider;
    for (Json& n : project["network"]["nodes"])
      if (n["type"] == "Affine") {
        n["params"]["n_outmaps"] = {7};
        wider = n["id"];
        break;
      }
    std::ofstream(imported.toStdString()) << project.dump(1);
    const CliRun reshaped = runCli({"train", imported, "--max-epoch", "1", "--train-samples", "64", "--run-dir",
                                    path("tune-reshaped"), "--events", "-"});
    QVERIFY2(reshaped.exitCode == 0, reshaped.stderrText.constData());
    const Json report = reshaped.last("initial_parameters");
    QCOMPARE(report.value("file", ""), path("tune/mlp.nsparams").toStdString());
    bool named = false;
    for (const Json& layer : report["layers"])
      if (layer["id"] == wider) {
        QCOMPARE(layer["status"], Json("reinitialized"));
        QCOMPARE(layer["reinitialized"][0]["blob"], Json("W"));
        QCOMPARE(layer["reinitialized"][0]["shape"], Json({784, 7}));
        QCOMPARE(layer["reinitialized"][0]["file_shape"][0], Json(784));
        named = true;
      } else {
        QVERIFY2(layer["status"] == "loaded" || layer["status"] == "reinitialized", layer.dump().c_str());
      }
    QVERIFY2(named, report.dump().c_str());
  }
};

QTEST_GUILESS_MAIN(OnnxImportTest)
#include "tst_onnx_import.moc"
