// The loss an import appends (Note [Imported output head], Note [Classifier output recognised]) and
// element-wise ops of two layers (Note [Elementwise import]), on ONNX models built here in memory
// (OnnxModel, no protobuf) and an NNC file (tests/data/nnabla): a final Gemm of K >= 2 raw scores,
// or a 1x1 Conv, ReLU and global pooling (SqueezeNet's head), gets SoftmaxCrossEntropy with a
// reason naming the layer; one output, a map or a Tanh gets SquaredError saying why; a final
// Softmax still becomes the loss's head; netsmith.loss in the metadata (Netsmith's own export) and
// --loss win, saying so; an NNC executor network ending in an Affine gets SoftmaxCrossEntropy too.
// A squeeze-and-excitation Mul of (C, H, W) by (C, 1, 1) becomes Mul2, Sub and Div of two layers
// Sub2 and Div2; an Add with broadcasting and inputs of different ranks are refused naming the
// node and both shapes.
#include <QtTest>

#include "engine/core/error.h"
#include "engine/import/nnabla/nnabla_importer.h"
#include "engine/import/onnx/onnx_importer.h"
#include "engine/project/graph.h"
#include "support/tensor_helpers.h"

using namespace netsmith;
using namespace netsmith::onnx_import;

namespace {

// An ONNX model written node by node, as onnx.helper would: input "x" of `dims` (batch first).
class ModelBuilder {
 public:
  explicit ModelBuilder(std::vector<int64_t> dims) {
    m_model.path = "built.onnx";
    m_model.opset = 13;
    m_model.producer = "test";
    OnnxValueInfo in;
    in.name = "x";
    in.elementType = 1;
    in.dims = std::move(dims);
    in.dimNames.assign(in.dims.size(), "");
    in.hasShape = true;
    m_model.inputs.push_back(in);
  }

  // A float initializer of `dims` holding 0.01, 0.02, ... (values do not matter here).
  std::string weights(const std::string& name, std::vector<int64_t> dims) {
    OnnxTensor t;
    t.name = name;
    t.dims = std::move(dims);
    for (int64_t i = 0; i < t.count(); ++i) t.floats.push_back(0.01f * static_cast<float>(i % 7 + 1));
    m_model.initializers.push_back(t);
    return name;
  }

  std::string node(const std::string& op, std::vector<std::string> inputs, std::map<std::string, OnnxAttr> attrs = {}) {
    OnnxNodeDef n;
    n.name = op + "_" + std::to_string(m_model.nodes.size());
    n.opType = op;
    n.inputs = std::move(inputs);
    n.outputs = {n.name + "_out"};
    n.attributes = std::move(attrs);
    m_model.nodes.push_back(n);
    return n.outputs[0];
  }

  OnnxModel finish(const std::string& output) {
    OnnxValueInfo out;
    out.name = output;
    m_model.outputs = {out};
    return m_model;
  }

 private:
  OnnxModel m_model;
};

OnnxAttr ints(std::vector<int64_t> v) {
  OnnxAttr a;
  a.kind = OnnxAttr::Kind::Ints;
  a.ints = std::move(v);
  return a;
}

OnnxAttr integer(int64_t v) {
  OnnxAttr a;
  a.kind = OnnxAttr::Kind::Int;
  a.i = v;
  return a;
}

// x (N, 8) → Gemm of `outputs` (→ `then`, when given).
OnnxModel gemmModel(int64_t outputs, const std::string& then = {}) {
  ModelBuilder b({1, 8});
  std::string y = b.node("Gemm", {"x", b.weights("W", {outputs, 8}), b.weights("B", {outputs})}, {{"transB", integer(1)}});
  if (!then.empty()) y = b.node(then, {y});
  return b.finish(y);
}

// x (N, 3, 6, 6) → Conv k×k of 5 → [ReLU] → GlobalAveragePool → Flatten: (N, 5).
OnnxModel convPoolModel(int64_t kernel, bool relu) {
  ModelBuilder b({1, 3, 6, 6});
  std::string y = b.node("Conv", {"x", b.weights("W", {5, 3, kernel, kernel}), b.weights("B", {5})},
                         {{"kernel_shape", ints({kernel, kernel})}, {"pads", ints({0, 0, 0, 0})}});
  if (relu) y = b.node("Relu", {y});
  y = b.node("GlobalAveragePool", {y});
  return b.finish(b.node("Flatten", {y}, {{"axis", integer(1)}}));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const NodeSpec* nodeOfType(const NetworkSpec& net, const std::string& type) {
  for (const NodeSpec& n : net.nodes)
    if (n.type == type) return &n;
  return nullptr;
}

// x (N, 4, 6, 6), s (N, 4, 1, 1) = Sigmoid(Conv 1x1(GlobalAveragePool(x))), then `op`(x, s) or,
// with `swap`, op(s, x).
OnnxModel squeezeExcitation(const std::string& op, bool swap = false) {
  ModelBuilder b({1, 4, 6, 6});
  std::string s = b.node("GlobalAveragePool", {"x"});
  s = b.node("Conv", {s, b.weights("W", {4, 4, 1, 1}), b.weights("B", {4})}, {{"kernel_shape", ints({1, 1})}});
  s = b.node("Sigmoid", {s});
  return b.finish(b.node(op, swap ? std::vector<std::string>{s, "x"} : std::vector<std::string>{"x", s}));
}

std::string importError(const OnnxModel& model) {
  return netsmith::test::errorOf([&] { importOnnx(model); }).toStdString();
}

}  // namespace

class ImportedLossTest : public QObject {
  Q_OBJECT

 private slots:
  // PyTorch's classifiers end in Linear: K raw scores per sample.
  void finalGemmOfSeveralScoresIsAClassifier() {
    const ImportedNetwork n = importOnnx(gemmModel(5));
    QCOMPARE(QString::fromStdString(n.loss), QString("SoftmaxCrossEntropy"));
    QVERIFY2(contains(n.lossReason, "Affine 'Gemm_0'") && contains(n.lossReason, "5 raw scores per sample"),
             n.lossReason.c_str());
    // The loss reads the Gemm's layer; no Softmax layer is made (infer applies the head).
    QCOMPARE(QString::fromStdString(n.outputNode), QString("Gemm_0"));
    QVERIFY(nodeOfType(n.network, "Softmax") == nullptr);
    const Graph g = buildGraph(n.network, OpRegistry::builtin());
    QCOMPARE(QString::fromStdString(g.loss().schema->name), QString("SoftmaxCrossEntropy"));
  }

  void oneOutputIsARegression() {
    const ImportedNetwork n = importOnnx(gemmModel(1));
    QCOMPARE(QString::fromStdString(n.loss), QString("SquaredError"));
    QVERIFY2(contains(n.lossReason, "one value per sample"), n.lossReason.c_str());
  }

  void scoresThroughAnotherLayerAreARegression() {
    const ImportedNetwork n = importOnnx(gemmModel(5, "Tanh"));
    QCOMPARE(QString::fromStdString(n.loss), QString("SquaredError"));
    QVERIFY2(contains(n.lossReason, "(5 values per sample) comes from Tanh 'Tanh_1'"), n.lossReason.c_str());
  }

  // A final Softmax still becomes SoftmaxCrossEntropy's output head (as before).
  void finalSoftmaxBecomesTheHead() {
    const ImportedNetwork n = importOnnx(gemmModel(5, "Softmax"));
    QCOMPARE(QString::fromStdString(n.loss), QString("SoftmaxCrossEntropy"));
    QVERIFY2(contains(n.lossReason, "ends in Softmax 'Softmax_1' over 5 classes"), n.lossReason.c_str());
    QCOMPARE(QString::fromStdString(n.outputNode), QString("Gemm_0"));
    QVERIFY(nodeOfType(n.network, "Softmax") == nullptr);
  }

  // SqueezeNet: Conv 1x1, ReLU, global pooling, flatten.
  void oneByOneConvolutionAndGlobalPoolingIsAClassifier() {
    const ImportedNetwork n = importOnnx(convPoolModel(1, true));
    QCOMPARE(QString::fromStdString(n.loss), QString("SoftmaxCrossEntropy"));
    QVERIFY2(contains(n.lossReason, "1x1 Convolution 'Conv_0'") && contains(n.lossReason, "GlobalAveragePooling"),
             n.lossReason.c_str());
    // A 3x3 convolution pooled is not a classifier's head by this rule.
    const ImportedNetwork wide = importOnnx(convPoolModel(3, false));
    QCOMPARE(QString::fromStdString(wide.loss), QString("SquaredError"));
  }

  void featureMapIsARegression() {
    ModelBuilder b({1, 3, 6, 6});
    const std::string y = b.node("Conv", {"x", b.weights("W", {5, 3, 1, 1})}, {{"kernel_shape", ints({1, 1})}});
    const ImportedNetwork n = importOnnx(b.finish(y));
    QCOMPARE(QString::fromStdString(n.loss), QString("SquaredError"));
    QVERIFY2(contains(n.lossReason, "has shape (5,6,6) per sample (from Convolution 'Conv_0'), not a vector of class scores"),
             n.lossReason.c_str());
  }

  // Netsmith's exporter records the loss: a regression that ends in an Affine comes back as one.
  void netsmithExportKeepsItsLoss() {
    OnnxModel m = gemmModel(5);
    m.metadata["netsmith.loss"] = "HuberLoss";
    const ImportedNetwork n = importOnnx(m);
    QCOMPARE(QString::fromStdString(n.loss), QString("HuberLoss"));
    QVERIFY2(contains(n.lossReason, "exported by Netsmith") && contains(n.lossReason, "netsmith.loss"), n.lossReason.c_str());
    m.metadata["netsmith.loss"] = "NoSuchLoss";  // not a loss of this build: recognised from the layers
    QCOMPARE(QString::fromStdString(importOnnx(m).loss), QString("SoftmaxCrossEntropy"));
  }

  void givenLossWinsAndSaysWhatAutoWouldChoose() {
    ImportOptions options;
    options.loss = "SquaredError";
    const ImportedNetwork n = importOnnx(gemmModel(5), options);
    QCOMPARE(QString::fromStdString(n.loss), QString("SquaredError"));
    QVERIFY2(contains(n.lossReason, "given with --loss (without it: SoftmaxCrossEntropy, because the model ends in Affine"),
             n.lossReason.c_str());
  }

  // The same choice for an nnabla network without a loss: the executor's network of an NNC
  // project (LeNet, ending in an Affine of 3 outputs).
  void nnablaNetworkWithoutLossEndingInAffine() {
    const nnabla_import::NnablaFile file = nnabla_import::readNnablaFile(NETSMITH_TEST_DATA "/nnabla/lenet_repeat.nntxt");
    nnabla_import::NnablaImportOptions options;
    options.network = "MainRuntime";
    const nnabla_import::NnablaImport imported = nnabla_import::importNnabla(file, options);
    QCOMPARE(QString::fromStdString(imported.network.loss), QString("SoftmaxCrossEntropy"));
    QVERIFY2(contains(imported.network.lossReason, "Affine 'Affine'") &&
                 contains(imported.network.lossReason, "3 raw scores per sample"),
             imported.network.lossReason.c_str());
    // The training network keeps its own loss, saying so.
    const nnabla_import::NnablaImport main = nnabla_import::importNnabla(file);
    QVERIFY2(contains(main.network.lossReason, "the network's own loss function"), main.network.lossReason.c_str());
  }

  // Note [Elementwise import]: squeeze-and-excitation's x · s with s per channel.
  void squeezeExcitationMulBecomesMul2() {
    for (bool swap : {false, true}) {
      const ImportedNetwork n = importOnnx(squeezeExcitation("Mul", swap));
      const NodeSpec* mul = nodeOfType(n.network, "Mul2");
      QVERIFY2(mul, "no Mul2 layer");
      const Graph g = buildGraph(n.network, OpRegistry::builtin());
      for (const GraphNode& node : g.nodes)
        if (node.schema->name == "Mul2") QVERIFY(node.outputShape == (Shape{4, 6, 6}));
    }
  }

  void subAndDivOfTwoLayersBecomeSub2AndDiv2() {
    for (const auto& [op, type] : {std::pair{"Sub", "Sub2"}, std::pair{"Div", "Div2"}}) {
      const ImportedNetwork n = importOnnx(squeezeExcitation(op));
      QVERIFY2(nodeOfType(n.network, type), type);
    }
  }

  void addWithBroadcastingIsRefusedNamingAdd2() {
    const std::string e = importError(squeezeExcitation("Add"));
    QVERIFY2(contains(e, "node 'Add_3' (op Add): no Netsmith layer computes Add with broadcasting, of (4,6,6) and (4,1,1)") &&
                 contains(e, "Add2 adds tensors of the same shape"),
             e.c_str());
  }

  // (N, 4, 6, 6) · (N, 4): ONNX would meet the batch axis of the second with the first's height.
  void inputsOfDifferentRanksAreRefused() {
    ModelBuilder b({1, 4, 6, 6});
    std::string s = b.node("GlobalAveragePool", {"x"});
    s = b.node("Flatten", {s}, {{"axis", integer(1)}});
    const std::string e = importError(b.finish(b.node("Mul", {"x", s})));
    QVERIFY2(contains(e, "node 'Mul_2' (op Mul): no Netsmith layer computes Mul of (4,6,6) and (4) per sample") &&
                 contains(e, "mixes samples"),
             e.c_str());
  }
};

QTEST_GUILESS_MAIN(ImportedLossTest)
#include "tst_imported_loss.moc"
