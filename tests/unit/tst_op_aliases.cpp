// Note [Op aliases]: SiLU names the Swish layer type. The registry resolves the alias to the one
// schema (so the kernels, the ONNX mapping and the gradient rows are Swish's), lists the type once,
// suggests aliases for misspellings, and refuses an alias that clashes with a type or another alias.
#include <QtTest>

#include <string>

#include "engine/core/error.h"
#include "engine/export/onnx_layers.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"
#include "engine/project/project_io.h"

using namespace netsmith;

namespace {

OpSchema dummy(const std::string& name, std::vector<std::string> aliases) {
  OpSchema s;
  s.name = name;
  s.category = "Activation";
  s.inputs = {"x"};
  s.aliases = std::move(aliases);
  s.inferShape = ops::sameShape;
  return s;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

class OpAliasesTest : public QObject {
  Q_OBJECT

 private slots:
  void siluIsSwish() {
    const OpRegistry& r = OpRegistry::builtin();
    const OpSchema* silu = r.find("SiLU");
    QVERIFY(silu);
    QCOMPARE(silu, r.find("Swish"));
    QCOMPARE(silu->name, std::string("Swish"));
    QCOMPARE(&r.get("SiLU"), silu);
    int listed = 0;
    for (const OpSchema* s : r.all()) {
      QVERIFY(s->name != "SiLU");
      listed += s->name == "Swish";
    }
    QCOMPARE(listed, 1);
    const Json j = schemaToJson(*silu);
    QCOMPARE(j.at("aliases"), Json::array({"SiLU"}));
    QVERIFY2(errorOf([&] { r.get("SILU"); }).find("did you mean 'SiLU'") != std::string::npos,
             errorOf([&] { r.get("SILU"); }).c_str());
  }

  void aliasClashesAreRefused() {
    OpRegistry r;
    r.add(dummy("Alpha", {"A"}));
    QVERIFY(errorOf([&] { r.add(dummy("A", {})); }).find("'A' is registered twice") != std::string::npos);
    QVERIFY(errorOf([&] { r.add(dummy("Beta", {"Alpha"})); }).find("alias 'Alpha' is already a layer type name") !=
            std::string::npos);
    QVERIFY(errorOf([&] { r.add(dummy("Gamma", {"A"})); }).find("alias 'A' is already") != std::string::npos);
    QVERIFY(errorOf([&] { r.add(dummy("Delta", {"Delta"})); }).find("alias 'Delta'") != std::string::npos);
    QCOMPARE(r.all().size(), size_t{1});
  }

  // A project may type a layer "SiLU": it loads, infers its shape and exports as Swish does.
  void aSiluLayerLoadsAndExportsAsSwish() {
    const Project p = parseProjectText(R"({"format": "netsmith-project", "version": 1, "name": "p", "network": {"nodes": [
      {"id": "x", "type": "Input", "params": {"shape": [4]}}, {"id": "fc", "type": "Affine", "params": {"n_outmaps": [3]}},
      {"id": "act", "type": "SiLU"}, {"id": "y", "type": "SquaredError"}],
      "links": [{"from": "x", "to": "fc"}, {"from": "fc", "to": "act"}, {"from": "act", "to": "y"}]},
      "dataset": {"training": {"format": "csv", "csv": "/tmp/none.csv"}}})",
                                       "/tmp/test.nsproj", ProjectParseOptions{.checkNetwork = false});
    const Graph g = buildGraph(p.network, OpRegistry::builtin());
    QCOMPARE(g.nodes[2].schema->name, std::string("Swish"));
    QVERIFY(g.nodes[2].outputShape == (Shape{3}));
    std::map<std::pair<size_t, size_t>, Tensor> store;
    const OnnxGraph o = buildOnnxGraph(g, "t", [&](size_t n, size_t b) {
      Tensor& t = store[{n, b}];
      t.resize(g.nodes[n].blobs[b].shape);
      t.zero();
      return &t;
    });
    std::vector<std::string> ops;
    for (const auto& n : o.nodes) ops.push_back(n.opType);
    QCOMPARE(ops, (std::vector<std::string>{"Flatten", "Gemm", "Sigmoid", "Mul", "Identity"}));
  }
};

QTEST_GUILESS_MAIN(OpAliasesTest)
#include "tst_op_aliases.moc"
