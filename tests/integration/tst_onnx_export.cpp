// netsmith-cli export --onnx: every sample project, a project with every other layer type, one
// with every activation whose ONNX form is composite or parametrised, and one per loss are
// trained briefly and exported (and the per-sample normalizations, in a zoo and one by one); each model passes onnx.checker (Debian's
// python3-onnx, /usr/bin/python3) and gives Netsmith's outputs on 1,000 validation images within
// 1e-4 in onnxruntime (from the test command's virtual environment, Note [Test Python]; where it is
// not importable the row is skipped after its checks, saying the comparison was not made).
// A run on a dataset with classes.txt puts the names in the model's metadata (class_names).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "engine/data/dataset.h"
#include "engine/project/project_io.h"
#include "support/cli_runner.h"
#include "support/named_dataset.h"
#include "support/test_python.h"
#include "support/train_runner.h"
#include "unit/dataset_test_files.h"

using namespace netsmith::test;
using netsmith::testing::writePng;
using netsmith::testing::writeText;

namespace {

constexpr int kCompared = 1000;
constexpr const char* kTolerance = "1e-4";

struct PyRun {
  int exitCode = -1;
  QString output;
};

PyRun python(const QString& interpreter, const QStringList& args) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(interpreter, QStringList{sourcePath("tests/support/onnx_compare.py")} + args);
  p.waitForFinished(600000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll()).trimmed()};
}

// The model's metadata_props, read back by ONNX's own Python package.
Json onnxMetadata(const QString& model) {
  const PyRun r = python("/usr/bin/python3", {"metadata", model});
  if (r.exitCode != 0) qWarning("%s", qPrintable(r.output));
  return r.exitCode == 0 ? Json::parse(r.output.toStdString(), nullptr, false) : Json();
}

QString ortPython() { return testPython(); }

Json node(const std::string& id, const std::string& type, Json params = Json::object()) {
  return {{"id", id}, {"type", type}, {"params", std::move(params)}};
}

// Every layer type the sample projects do not use, with the pooling cases whose ONNX form is not
// the obvious one (ceil mode; average over a window past the padded input).
Json layerZoo() {
  Json p = sampleProject("fashion_mnist_lenet");
  p["name"] = "layer zoo";
  p["network"]["nodes"] = Json::array({
      node("x", "Input", {{"shape", {1, 28, 28}}}),
      node("c1", "Convolution", {{"outmaps", 4}, {"kernel", {3, 3}}, {"pad", {1, 1}}}),
      node("bn1", "BatchNormalization"),
      node("e1", "ELU", {{"alpha", 0.7}}),
      node("ap", "AveragePooling", {{"kernel", {3, 3}}, {"stride", {2, 2}}, {"pad", {1, 1}}, {"ignore_border", false}}),
      node("ap2", "AveragePooling",
           {{"kernel", {3, 3}}, {"stride", {1, 1}}, {"pad", {1, 1}}, {"including_pad", false}}),
      node("dc", "Deconvolution", {{"outmaps", 4}, {"kernel", {3, 3}}, {"stride", {2, 2}}, {"pad", {1, 1}}}),
      node("lr", "LeakyReLU", {{"alpha", 0.2}}),
      node("mp", "MaxPooling", {{"kernel", {3, 3}}, {"stride", {2, 2}}, {"ignore_border", false}}),
      node("sw", "Swish"),
      node("th", "Tanh"),
      node("cat", "Concatenate", {{"axis", 0}}),
      node("sm", "Softmax", {{"axis", 0}}),
      node("add", "Add2"),
      node("gap", "GlobalAveragePooling"),
      node("rs", "Reshape", {{"shape", {2, 4}}}),
      node("fc1", "Affine", {{"n_outmaps", {6}}, {"base_axis", 2}}),
      node("sg", "Sigmoid"),
      node("do", "Dropout", {{"p", 0.2}}),
      node("fl", "Flatten"),
      node("fc2", "Affine", {{"n_outmaps", {10}}}),
      node("y", "SoftmaxCrossEntropy"),
  });
  Json links = Json::array();
  for (auto [from, to] : std::vector<std::pair<const char*, const char*>>{
           {"x", "c1"}, {"c1", "bn1"}, {"bn1", "e1"}, {"e1", "ap"}, {"ap", "ap2"}, {"ap2", "dc"}, {"dc", "lr"},
           {"lr", "mp"}, {"mp", "sw"}, {"mp", "th"}, {"sw", "cat"}, {"th", "cat"}, {"cat", "sm"}, {"sm", "add"},
           {"cat", "add"}, {"add", "gap"}, {"gap", "rs"}, {"rs", "fc1"}, {"fc1", "sg"}, {"sg", "do"}, {"do", "fl"},
           {"fl", "fc2"}, {"fc2", "y"}})
    links.push_back({{"from", from}, {"to", to}});
  p["network"]["links"] = links;
  return p;
}

// Every activation whose ONNX form is more than one node or has parameters, side by side on one
// convolution's output: ReLU6 (Clip), PReLU per channel and shared (PRelu with a broadcast
// slope), GELU in both forms, SELU, SoftPlus with and without beta, Mish, HardSigmoid, HardSwish
// and a layer typed SiLU (Swish's alias).
Json activationZoo() {
  Json p = sampleProject("fashion_mnist_lenet");
  p["name"] = "activation zoo";
  Json nodes = Json::array({
      node("x", "Input", {{"shape", {1, 28, 28}}}),
      node("c1", "Convolution", {{"outmaps", 4}, {"kernel", {3, 3}}, {"pad", {1, 1}}}),
      node("pr", "PReLU", {{"shared", false}}),
      node("mp", "MaxPooling", {{"kernel", {2, 2}}}),
  });
  Json links = Json::array({{{"from", "x"}, {"to", "c1"}}, {{"from", "c1"}, {"to", "pr"}}, {{"from", "pr"}, {"to", "mp"}}});
  const std::vector<std::pair<std::string, Json>> branches = {
      {"ReLU6", Json::object()}, {"GELU", Json::object()}, {"GELU", {{"approximate", "none"}}},
      {"SELU", Json::object()}, {"SoftPlus", Json::object()}, {"SoftPlus", {{"beta", 2.0}}},
      {"Mish", Json::object()}, {"HardSigmoid", Json::object()}, {"HardSwish", Json::object()},
      {"SiLU", Json::object()}, {"PReLU", Json::object()}};
  for (size_t b = 0; b < branches.size(); ++b) {
    const std::string id = "a" + std::to_string(b);
    nodes.push_back(node(id, branches[b].first, branches[b].second));
    links.push_back({{"from", "mp"}, {"to", id}});
    links.push_back({{"from", id}, {"to", "cat"}});
  }
  nodes.push_back(node("cat", "Concatenate", {{"axis", 0}}));
  nodes.push_back(node("fc", "Affine", {{"n_outmaps", {10}}}));
  nodes.push_back(node("y", "SoftmaxCrossEntropy"));
  links.push_back({{"from", "cat"}, {"to", "fc"}});
  links.push_back({{"from", "fc"}, {"to", "y"}});
  p["network"]["nodes"] = nodes;
  p["network"]["links"] = links;
  return p;
}

// The activation zoo mixes every branch through an Affine and a Softmax, which can hide a small
// error in one activation (GELU's tanh and erf forms differ by at most 4.7e-4). Here the
// activation is the last layer, under SquaredError's Identity head, so the compared outputs are
// its own values: Affine(10) then the activation named by `row`, "GELU" or "GELU_none" (the
// variant after the underscore picks its parameters).
Json withActivation(const std::string& row) {
  static const std::map<std::string, std::pair<std::string, Json>> kRows = {
      {"ReLU6", {"ReLU6", Json::object()}},         {"PReLU", {"PReLU", {{"shared", false}}}},
      {"GELU", {"GELU", Json::object()}},           {"GELU_none", {"GELU", {{"approximate", "none"}}}},
      {"SELU", {"SELU", Json::object()}},           {"SoftPlus", {"SoftPlus", Json::object()}},
      {"SoftPlus_beta2", {"SoftPlus", {{"beta", 2.0}}}}, {"Mish", {"Mish", Json::object()}},
      {"HardSigmoid", {"HardSigmoid", Json::object()}},  {"HardSwish", {"HardSwish", Json::object()}},
      {"SiLU", {"SiLU", Json::object()}}};
  const auto& [type, params] = kRows.at(row);
  Json p = sampleProject("fashion_mnist_mlp");
  p["name"] = "activation " + row;
  p["network"]["nodes"] = Json::array({node("x", "Input", {{"shape", {1, 28, 28}}}),
                                       node("fc", "Affine", {{"n_outmaps", {10}}}), node("act", type, params),
                                       node("loss", "SquaredError")});
  p["network"]["links"] = Json::array({{{"from", "x"}, {"to", "fc"}}, {{"from", "fc"}, {"to", "act"}},
                                       {{"from", "act"}, {"to", "loss"}}});
  return p;
}

// A network of nodes (id, type, params) and links, with the LeNet sample's data and settings.
Json zooProject(const std::string& name, const std::vector<std::tuple<const char*, const char*, Json>>& nodes,
                const std::vector<std::pair<const char*, const char*>>& links) {
  Json p = sampleProject("fashion_mnist_lenet");
  p["name"] = name;
  p["network"]["nodes"] = Json::array();
  for (const auto& [id, type, params] : nodes) p["network"]["nodes"].push_back(node(id, type, params));
  p["network"]["links"] = Json::array();
  for (auto [from, to] : links) p["network"]["links"].push_back({{"from", from}, {"to", to}});
  return p;
}

// The shape layers chained on a convolution (each reads the one before, so a wrong index map
// changes everything after it), with Interpolate's five coordinate modes (and half_pixel to one row) and a
// reflecting Pad on side branches.
Json shapeZoo() {
  return zooProject(
      "shape zoo",
      {{"x", "Input", {{"shape", {1, 28, 28}}}},
       {"c1", "Convolution", {{"outmaps", 6}, {"kernel", {3, 3}}, {"pad", {1, 1}}}},
       {"mp", "MaxPooling", {{"kernel", {2, 2}}}},
       {"cs", "ChannelShuffle", {{"group", 3}}},
       {"sl", "Slice", {{"start", {1, 0, 2}}, {"stop", {5, 14, 14}}, {"step", {1, 2, 1}}}},
       {"pd", "Pad", {{"pad_width", {1, 2, 0, 1}}, {"constant_value", 0.5}}},
       {"tr", "Transpose", {{"axes", {0, 2, 1}}}},
       {"up", "Unpooling", {{"kernel", {2, 1}}}},
       {"ip", "Interpolate", {{"output_size", {9, 8}}, {"align_corners", false}, {"half_pixel", true}}},
       {"ip2", "Interpolate", {{"output_size", {5, 6}}, {"mode", "nearest"}, {"align_corners", false}}},
       {"ip3", "Interpolate",
        {{"output_size", {6, 7}}, {"mode", "nearest"}, {"align_corners", false}, {"half_pixel", true}}},
       {"ip4", "Interpolate", {{"scale", 1.5}}},
       {"ip5", "Interpolate", {{"output_size", {4, 4}}, {"align_corners", false}}},
       {"pr", "Pad", {{"pad_width", {2, 1, 1, 3}}, {"mode", "reflect"}}}, {"f6", "Flatten", Json::object()},
       {"ip6", "Interpolate", {{"output_size", {1, 5}}, {"align_corners", false}, {"half_pixel", true}}},
       {"f7", "Flatten", Json::object()},
       {"id", "Identity", Json::object()}, {"f1", "Flatten", Json::object()}, {"f2", "Flatten", Json::object()},
       {"f3", "Flatten", Json::object()},
       {"f4", "Flatten", Json::object()}, {"f5", "Flatten", Json::object()}, {"cat", "Concatenate", {{"axis", 0}}},
       {"fc", "Affine", {{"n_outmaps", {10}}}}, {"y", "SoftmaxCrossEntropy", Json::object()}},
      {{"x", "c1"}, {"c1", "mp"}, {"mp", "cs"}, {"cs", "sl"}, {"sl", "pd"}, {"pd", "tr"}, {"tr", "up"},
       {"up", "ip"}, {"ip", "id"}, {"id", "f1"}, {"tr", "ip2"}, {"ip2", "f2"}, {"up", "ip3"}, {"ip3", "f3"},
       {"tr", "ip4"}, {"ip4", "f4"}, {"pd", "ip5"}, {"ip5", "f5"}, {"sl", "pr"}, {"pr", "f6"}, {"f6", "cat"},
       {"tr", "ip6"}, {"ip6", "f7"}, {"f7", "cat"}, {"f1", "cat"}, {"f2", "cat"}, {"f3", "cat"}, {"f4", "cat"},
       {"f5", "cat"}, {"cat", "fc"}, {"fc", "y"}});
}

// The arithmetic layers: a squeeze-and-excitation-like Mul2 over channels, Div2, Sub2 over a
// missing leading axis, the scalar ops in a chain, and the reductions with and without keep_dims.
Json arithmeticZoo() {
  return zooProject(
      "arithmetic zoo",
      {{"x", "Input", {{"shape", {1, 28, 28}}}},
       {"c1", "Convolution", {{"outmaps", 4}, {"kernel", {3, 3}}, {"pad", {1, 1}}}},
       {"mp", "MaxPooling", {{"kernel", {2, 2}}}}, {"gap", "Mean", {{"axes", {1, 2}}, {"keep_dims", true}}},
       {"m", "Mul2", Json::object()}, {"sg", "Sigmoid", Json::object()}, {"as", "AddScalar", {{"val", 1.0}}},
       {"d", "Div2", Json::object()},
       {"mx", "Max", {{"axes", {0}}}}, {"s", "Sub2", Json::object()}, {"ps", "PowScalar", {{"val", 2.0}}},
       {"ms", "MulScalar", {{"val", 0.5}}}, {"rs", "RSubScalar", {{"val", 1.0}}}, {"sg2", "Sigmoid", Json::object()},
       {"as2", "AddScalar", {{"val", 1.0}}}, {"rd", "RDivScalar", {{"val", 2.0}}}, {"sm", "Sum", {{"axes", {0}}}},
       {"mxa", "Max", {{"axes", {0, 1, 2}}}}, {"mn", "Mean", {{"axes", {1}}}},
       {"sb", "Sum", {{"axes", {1, 2}}, {"keep_dims", true}}}, {"fl", "Flatten", Json::object()},
       {"fl2", "Flatten", Json::object()},
       {"fl3", "Flatten", Json::object()}, {"cat", "Concatenate", {{"axis", 0}}},
       {"fc", "Affine", {{"n_outmaps", {10}}}},
       {"y", "SoftmaxCrossEntropy", Json::object()}},
      {{"x", "c1"}, {"c1", "mp"}, {"mp", "gap"}, {"mp", "m"}, {"gap", "m"}, {"gap", "sg"}, {"sg", "as"},
       {"m", "d"}, {"as", "d"}, {"d", "mx"}, {"d", "s"}, {"mx", "s"}, {"s", "ps"}, {"ps", "ms"}, {"ms", "rs"},
       {"rs", "sg2"}, {"sg2", "as2"}, {"as2", "rd"}, {"rd", "sm"}, {"sm", "fl"}, {"rs", "mxa"}, {"mxa", "cat"},
       {"rs", "mn"}, {"mn", "fl2"}, {"rd", "sb"}, {"sb", "fl3"}, {"fl", "cat"}, {"fl2", "cat"}, {"fl3", "cat"},
       {"cat", "fc"}, {"fc", "y"}});
}

// The per-sample normalizations on image shapes, chained on a convolution: LayerNormalization
// over (C, H, W) (ONNX LayerNormalization, opset 17), InstanceNormalization and
// GroupNormalization with 2 groups (Note [GroupNormalization in ONNX]: Reshape,
// InstanceNormalization, Reshape, Mul, Add).
Json normalizationZoo() {
  return zooProject(
      "normalization zoo",
      {{"x", "Input", {{"shape", {1, 28, 28}}}},
       {"c1", "Convolution", {{"outmaps", 4}, {"kernel", {3, 3}}, {"pad", {1, 1}}}},
       {"ln", "LayerNormalization", Json::object()}, {"r1", "ReLU", Json::object()},
       {"mp", "MaxPooling", {{"kernel", {2, 2}}}},
       {"in", "InstanceNormalization", Json::object()},
       {"c2", "Convolution", {{"outmaps", 6}, {"kernel", {3, 3}}, {"pad", {1, 1}}}},
       {"gn", "GroupNormalization", {{"num_groups", 2}}}, {"r2", "ReLU", Json::object()},
       {"fc", "Affine", {{"n_outmaps", {10}}}}, {"y", "SoftmaxCrossEntropy", Json::object()}},
      {{"x", "c1"}, {"c1", "ln"}, {"ln", "r1"}, {"r1", "mp"}, {"mp", "in"}, {"in", "c2"}, {"c2", "gn"},
       {"gn", "r2"}, {"r2", "fc"}, {"fc", "y"}});
}

// One normalization as the last layer under SquaredError's Identity head, so the compared outputs
// are its own values: Affine(10), Reshape to `shape`, the layer, Flatten.
Json withNormalization(const std::string& row) {
  static const std::map<std::string, std::tuple<std::string, Json, std::vector<int64_t>>> kRows = {
      {"LayerNormalization", {"LayerNormalization", Json::object(), {2, 5}}},
      {"LayerNormalization_rows", {"LayerNormalization", {{"batch_axis", {0, 1}}, {"no_bias", true}}, {2, 5}}},
      {"InstanceNormalization", {"InstanceNormalization", {{"eps", 1e-3}}, {2, 5}}},
      {"GroupNormalization", {"GroupNormalization", {{"num_groups", 5}}, {10, 1}}},
      {"GroupNormalization_no_scale", {"GroupNormalization", {{"num_groups", 1}, {"no_scale", true}}, {2, 5}}}};
  const auto& [type, params, shape] = kRows.at(row);
  return zooProject("normalization " + row,
                    {{"x", "Input", {{"shape", {1, 28, 28}}}}, {"fc", "Affine", {{"n_outmaps", {10}}}},
                     {"rs", "Reshape", {{"shape", shape}}}, {"norm", type.c_str(), params},
                     {"fl", "Flatten", Json::object()}, {"loss", "SquaredError", Json::object()}},
                    {{"x", "fc"}, {"fc", "rs"}, {"rs", "norm"}, {"norm", "fl"}, {"fl", "loss"}});
}

// A linear model (a Sigmoid before BinaryCrossEntropy, which reads probabilities) with `loss`.
Json withLoss(const std::string& loss) {
  Json p = sampleProject("fashion_mnist_mlp");
  p["name"] = "loss " + loss;
  Json nodes = Json::array({node("x", "Input", {{"shape", {1, 28, 28}}}), node("fc", "Affine", {{"n_outmaps", {10}}})});
  Json links = Json::array({{{"from", "x"}, {"to", "fc"}}});
  std::string last = "fc";
  if (loss == "BinaryCrossEntropy" || loss == "CategoricalCrossEntropy") {
    nodes.push_back(node("p", loss == "BinaryCrossEntropy" ? "Sigmoid" : "Softmax"));
    links.push_back({{"from", "fc"}, {"to", "p"}});
    last = "p";
  }
  nodes.push_back(node("loss", loss));
  links.push_back({{"from", last}, {"to", "loss"}});
  p["network"]["nodes"] = nodes;
  p["network"]["links"] = links;
  return p;
}

}  // namespace

class OnnxExportTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string m_images;
  double m_scale = 0;
  QString m_inputs;  // CSV of the first kCompared validation images as PNG files

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const PyRun onnx = python("/usr/bin/python3", {"check", "/nonexistent"});
    QVERIFY2(!onnx.output.contains("No module named 'onnx'"),
             "Debian's python3-onnx is missing: installer/install-deps.sh installs it");
    const netsmith::Project project = netsmith::loadProject(sourcePath("projects/fashion_mnist_lenet.nsproj").toStdString());
    m_images = project.dataset.validation.images;
    m_scale = project.dataset.scale;
    const netsmith::Dataset raw = netsmith::loadDataSource(project.dataset.validation, 1.0, "error");
    QByteArray csv = "x:image\n";
    QDir(m_dir.path()).mkdir("png");
    for (int i = 0; i < kCompared; ++i) {
      const QString name = QString("png/%1.png").arg(i);
      const std::vector<float> values = raw.sampleValues(i);
      const float* pixels = values.data();
      QVERIFY(writePng(m_dir.filePath(name), 28, 28, PNG_COLOR_TYPE_GRAY, 8,
                       [&](int x, int y, int) { return static_cast<int>(pixels[y * 28 + x]); }));
      csv += name.toUtf8() + "\n";
    }
    m_inputs = m_dir.filePath("inputs.csv");
    writeText(m_inputs, csv);
  }

  void exportsPassTheCheckerAndMatchOnnxRuntime_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"fashion_mnist_lenet", "fashion_mnist_mlp", "fashion_mnist_resnet", "layer_zoo",
                          "activation_zoo", "shape_zoo", "arithmetic_zoo", "loss_SigmoidCrossEntropy", "loss_BinaryCrossEntropy", "loss_SquaredError", "loss_HuberLoss",
                          "loss_CategoricalCrossEntropy", "normalization_zoo"})
      QTest::newRow(n) << n;
    for (const char* a : {"LayerNormalization", "LayerNormalization_rows", "InstanceNormalization", "GroupNormalization",
                          "GroupNormalization_no_scale"})
      QTest::newRow(qPrintable(QString("norm_") + a)) << QString("norm_") + a;
    for (const char* a : {"ReLU6", "PReLU", "GELU", "GELU_none", "SELU", "SoftPlus", "SoftPlus_beta2", "Mish",
                          "HardSigmoid", "HardSwish", "SiLU"})
      QTest::newRow(qPrintable(QString("act_") + a)) << QString("act_") + a;
  }
  void exportsPassTheCheckerAndMatchOnnxRuntime() {
    QFETCH(QString, name);
    const std::string n = name.toStdString();
    Json project;
    if (n == "layer_zoo") project = layerZoo();
    else if (n == "activation_zoo") project = activationZoo();
    else if (n == "shape_zoo") project = shapeZoo();
    else if (n == "arithmetic_zoo") project = arithmeticZoo();
    else if (n.rfind("loss_", 0) == 0) project = withLoss(n.substr(5));
    else if (n.rfind("act_", 0) == 0) project = withActivation(n.substr(4));
    else if (n == "normalization_zoo") project = normalizationZoo();
    else if (n.rfind("norm_", 0) == 0) project = withNormalization(n.substr(5));
    else project = sampleProject(n);
    const std::string path = saveProject(m_dir, n, project);
    const QString run = m_dir.filePath("run-" + name);
    const CliRun train = runCli({"train", QString::fromStdString(path), "--max-epoch", "1", "--train-samples", "512",
                                 "--validation-samples", "256", "--run-dir", run, "--quiet"});
    QVERIFY2(train.exitCode == 0, train.stderrText.constData());

    const QString model = m_dir.filePath(name + ".onnx");
    const CliRun exported = runCli({"export", run, "--onnx", model});
    QVERIFY2(exported.exitCode == 0, exported.stderrText.constData());
    // Note [Opset per model]: 13, or 17 for a model with a LayerNormalization.
    bool layerNorm = false;
    for (const Json& nd : project["network"]["nodes"]) layerNorm = layerNorm || nd["type"] == "LayerNormalization";
    QVERIFY2(exported.stdoutText.contains(layerNorm ? "opset 17" : "opset 13"), exported.stdoutText.constData());
    const PyRun checked = python("/usr/bin/python3", {"check", model});
    QVERIFY2(checked.exitCode == 0, qPrintable(checked.output));
    qInfo("%s", qPrintable(checked.output));

    const QString ours = m_dir.filePath(name + "-netsmith.csv");
    const CliRun infer = runCli({"infer", run, "--input", m_inputs, "--output", ours});
    QVERIFY2(infer.exitCode == 0, infer.stderrText.constData());
    const PyRun compared = python(ortPython(), {"compare", model, QString::fromStdString(m_images),
                                                QString::number(kCompared), QString::number(m_scale, 'g', 17), ours,
                                                kTolerance});
    if (compared.exitCode == 77)
      QSKIP(qPrintable(QString("%1: exported and checked, NOT compared with onnxruntime: %2 (Python %3)")
                           .arg(name, compared.output, ortPython())));
    QVERIFY2(compared.exitCode == 0, qPrintable(compared.output));
    qInfo("%s: %s", qPrintable(name), qPrintable(compared.output));
  }

  // The default target is the run folder's model.onnx; --parameters best exports best.nsparams.
  void defaultPathAndBestParameters() {
    const QString run = m_dir.filePath("run-fashion_mnist_mlp");
    QVERIFY(QFileInfo::exists(run));
    const CliRun r = runCli({"export", run, "--parameters", "best"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    QVERIFY(QFileInfo::exists(run + "/model.onnx"));
    QCOMPARE(python("/usr/bin/python3", {"check", run + "/model.onnx"}).exitCode, 0);
    const CliRun missing = runCli({"export", m_dir.filePath("nothing")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.stderrText.contains("no such run folder"));
    // Fashion-MNIST's IDX files name no classes; the sample names them (dataset.class_names, Note
    // [Class names in a project]), and the run passes them on into the metadata.
    const Json meta = onnxMetadata(run + "/model.onnx");
    QVERIFY(meta.is_object());
    QVERIFY(meta.contains("netsmith.input_scale"));
    QVERIFY(meta.contains("class_names"));
    const Json names = Json::parse(meta["class_names"].get<std::string>());
    QCOMPARE(names.size(), size_t{10});
    QCOMPARE(names[0].get<std::string>(), std::string("T-shirt/top"));
    QCOMPARE(names[9].get<std::string>(), std::string("Ankle boot"));
  }

  // Note [Run class names]: a run on a dataset with classes.txt exports the names as the JSON
  // array class_names, from the run folder's own copy (the dataset's file is gone by then).
  void classNamesInTheMetadata() {
    const NamedDataset d = writeNamedDataset(m_dir.filePath("named"));
    const QString run = m_dir.filePath("run-named");
    const CliRun train = runCli({"train", d.project, "--max-epoch", "1", "--run-dir", run, "--quiet"});
    QVERIFY2(train.exitCode == 0, train.stderrText.constData());
    QVERIFY(QFile::remove(d.classesFile));
    const QString model = m_dir.filePath("named.onnx");
    const CliRun exported = runCli({"export", run, "--onnx", model});
    QVERIFY2(exported.exitCode == 0, exported.stderrText.constData());
    QCOMPARE(python("/usr/bin/python3", {"check", model}).exitCode, 0);
    const Json meta = onnxMetadata(model);
    QVERIFY(meta.is_object() && meta.contains("class_names"));
    const Json names = Json::parse(meta["class_names"].get<std::string>());
    QCOMPARE(names.get<std::vector<std::string>>(), d.names);
    QCOMPARE(meta.at("netsmith.project").get<std::string>(), std::string("Named classes"));
  }
};

QTEST_GUILESS_MAIN(OnnxExportTest)
#include "tst_onnx_export.moc"
