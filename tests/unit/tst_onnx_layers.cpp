// The ONNX layer table (Note [ONNX layer table]): one entry, from the op's folder, for every
// registered op and nothing else, and never two for one op; an op without one is an error naming
// the layer; the graphs it builds are well formed (every node input defined before use);
// pooling's ceil mode becomes explicit end padding.
#include <QtTest>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/export/onnx_layers.h"
#include "engine/project/project_io.h"

using namespace netsmith;

namespace {

// Zero blobs of the right shapes: these tests look at structure, not values.
struct ZeroBlobs {
  std::map<std::pair<size_t, size_t>, Tensor> store;
  const Tensor* operator()(const Graph& g, size_t node, size_t blob) {
    Tensor& t = store[{node, blob}];
    t.resize(g.nodes[node].blobs[blob].shape);
    t.zero();
    return &t;
  }
};

OnnxGraph build(const Graph& g) {
  auto blobs = std::make_shared<ZeroBlobs>();
  return buildOnnxGraph(g, "test", [&](size_t n, size_t b) { return (*blobs)(g, n, b); });
}

void checkWellFormed(const OnnxGraph& g) {
  std::set<std::string> defined{g.inputName};
  for (const auto& i : g.initializers) QVERIFY2(defined.insert(i.name).second, i.name.c_str());
  std::set<std::string> nodeNames;
  for (const auto& n : g.nodes) {
    QVERIFY2(nodeNames.insert(n.name).second, n.name.c_str());
    for (const auto& in : n.inputs) QVERIFY2(defined.count(in), (n.name + " reads undefined " + in).c_str());
    for (const auto& out : n.outputs) QVERIFY2(defined.insert(out).second, (n.name + " redefines " + out).c_str());
  }
  QVERIFY(defined.count(g.outputName));
}

Graph graphOf(const std::string& json) {
  const Project p = parseProjectText(json, "/tmp/test.nsproj", ProjectParseOptions{.checkNetwork = false});
  return buildGraph(p.network, OpRegistry::builtin());
}

const char* kProjectTail =
    R"(, "dataset": {"training": {"format": "csv", "csv": "/tmp/none.csv"}}})";

}  // namespace

class OnnxLayersTest : public QObject {
  Q_OBJECT

 private slots:
  void everyRegisteredOpHasAnEntry() {
    const auto& table = onnxLayerTable();
    std::set<std::string> registered;
    for (const OpSchema* s : OpRegistry::builtin().all()) {
      registered.insert(s->name);
      QVERIFY2(table.count(s->name),
               ("no ONNX mapping for " + s->name + ": add one in the op's folder, engine/ops/<op>/onnx.cpp").c_str());
    }
    for (const auto& [name, f] : table) QVERIFY2(registered.count(name), ("mapping for unknown op " + name).c_str());
    QVERIFY(!registered.empty());
  }

  // Two folders mapping the same layer type are an error naming it, not a silent overwrite.
  void secondMappingOfATypeIsAnError() {
    OnnxLayerTable table;
    registerOnnxMappings(table);
    QCOMPARE(table.size(), onnxLayerTable().size());
    try {
      addOnnxMapping(table, "ReLU", [](OnnxLayerContext&) {});
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("two ONNX mappings for layer type 'ReLU'") != std::string::npos, e.what());
    }
  }

  void opWithoutEntryIsAnErrorNamingTheLayer() {
    OpRegistry registry;
    registerBuiltinOps(registry);
    OpSchema mystery = *registry.find("ReLU");
    mystery.name = "Mystery";
    registry.add(mystery);
    NetworkSpec spec;
    spec.nodes = {{"in", "Input", Json{{"shape", {4}}}, {0, 0}},
                  {"odd", "Mystery", Json::object(), {0, 0}},
                  {"fc", "Affine", Json{{"n_outmaps", {3}}}, {0, 0}},
                  {"loss", "SoftmaxCrossEntropy", Json::object(), {0, 0}}};
    spec.links = {{"in", "odd", {}}, {"odd", "fc", {}}, {"fc", "loss", {}}};
    const Graph g = buildGraph(spec, registry);
    try {
      build(g);
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("layer 'odd' (Mystery) has no ONNX equivalent") != std::string::npos, e.what());
    }
  }

  void sampleProjectsMapToWellFormedGraphs() {
    for (const char* name : {"fashion_mnist_lenet", "fashion_mnist_mlp", "fashion_mnist_resnet"}) {
      const Project p = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/" + name + ".nsproj");
      const Graph g = buildGraph(p.network, OpRegistry::builtin());
      const OnnxGraph o = build(g);
      checkWellFormed(o);
      QCOMPARE(o.nodes.back().opType, std::string("Softmax"));
      QCOMPARE(o.nodes.back().outputs.at(0), std::string("y"));
      QVERIFY(o.inputShape == (Shape{1, 28, 28}));
      QVERIFY(o.outputShape == (Shape{10}));
    }
  }

  // nnabla's ceil mode (ignore_border false) is floor mode with a larger end pad; including_pad
  // with a window past the padded input makes the padding explicit (Note [Pooling windows]).
  void poolingCeilModeBecomesEndPadding() {
    const Graph g = graphOf(R"({"format": "netsmith-project", "version": 1, "name": "p", "network": {"nodes": [
      {"id": "x", "type": "Input", "params": {"shape": [1, 7, 7]}},
      {"id": "mp", "type": "MaxPooling", "params": {"kernel": [3, 3], "stride": [2, 2], "ignore_border": false}},
      {"id": "ap", "type": "AveragePooling", "params": {"kernel": [3, 3], "stride": [2, 2], "ignore_border": false, "pad": [1, 1]}},
      {"id": "f", "type": "Flatten"}, {"id": "fc", "type": "Affine", "params": {"n_outmaps": [2]}},
      {"id": "y", "type": "SoftmaxCrossEntropy"}],
      "links": [{"from": "x", "to": "mp"}, {"from": "mp", "to": "ap"}, {"from": "ap", "to": "f"},
                {"from": "f", "to": "fc"}, {"from": "fc", "to": "y"}]})" + std::string(kProjectTail));
    const OnnxGraph o = build(g);
    checkWellFormed(o);
    auto attr = [](const OnnxNode& n, const std::string& name) {
      for (const auto& a : n.attributes)
        if (a.name == name) return a;
      return OnnxAttribute{};
    };
    // MaxPooling 7 → ceil(7/2) = 4 outputs; the last window starts at 6 and needs 2 more rows.
    QCOMPARE(g.nodes[1].outputShape, (Shape{1, 4, 4}));
    QCOMPARE(o.nodes[0].opType, std::string("MaxPool"));
    QVERIFY(attr(o.nodes[0], "pads").ints == (std::vector<int64_t>{0, 0, 2, 2}));
    // AveragePooling 4 + 2 pad → ceil(6/2) = 3 outputs: the last window starts at 3 and runs one
    // past the padded input, so the pad is an explicit Pad and the overhang is left out of the mean.
    QCOMPARE(g.nodes[2].outputShape, (Shape{1, 3, 3}));
    QCOMPARE(o.nodes[1].opType, std::string("Pad"));
    QCOMPARE(o.nodes[2].opType, std::string("AveragePool"));
    QVERIFY(attr(o.nodes[2], "pads").ints == (std::vector<int64_t>{0, 0, 1, 1}));
    QCOMPARE(attr(o.nodes[2], "count_include_pad").i, int64_t{0});
  }
};

QTEST_GUILESS_MAIN(OnnxLayersTest)
#include "tst_onnx_layers.moc"
