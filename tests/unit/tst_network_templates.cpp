// Network templates (engine/project/network_templates.h): each builds a valid network for the
// inputs it takes, its trainable parameter count at 3x224x224 and 1000 classes is torchvision's
// (the figures torchvision's model cards give, BatchNormalization's running statistics not
// counted), and bad requests are refused naming the template.
#include <QtTest>
#include <set>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/model/network.h"
#include <cmath>
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/network_templates.h"

using namespace netsmith;

namespace {
const NetworkTemplate* find(const std::string& id) {
  static const std::vector<NetworkTemplate> all = networkTemplates();
  for (const NetworkTemplate& t : all)
    if (t.id == id) return &t;
  return nullptr;
}
}  // namespace

class TestNetworkTemplates : public QObject {
  Q_OBJECT
 private slots:
  void torchvisionParameterCounts_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<qlonglong>("parameters");
    QTest::newRow("resnet18") << "resnet18" << 11'689'512LL;
    QTest::newRow("vgg11_bn") << "vgg11_bn" << 132'868'840LL;
    QTest::newRow("mobilenet_v2") << "mobilenet_v2" << 3'504'872LL;
  }
  void torchvisionParameterCounts() {
    QFETCH(QString, id);
    QFETCH(qlonglong, parameters);
    if (!find(id.toStdString())) {
      QVERIFY2(id == "mobilenet_v2" && !OpRegistry::builtin().find("ReLU6"), qPrintable(id));
      QSKIP("MobileNetV2 needs the ReLU6 layer, which this registry lacks");
    }
    const Graph g = buildGraph(makeTemplateNetwork(id.toStdString(), {3, 224, 224}, 1000), OpRegistry::builtin());
    QCOMPARE(static_cast<qlonglong>(g.parameterCount), parameters);
    QCOMPARE(g.prediction().outputShape, (Shape{1000}));
  }

  // Every template at the sizes a person of this console has: valid, one row per node, its
  // prediction has one output per class.
  void everyTemplateBuildsForSmallImages() {
    QVERIFY(networkTemplates().size() >= 3);
    for (const NetworkTemplate& t : networkTemplates())
      for (const Shape& in : {Shape{3, 32, 32}, Shape{1, 64, 48}, Shape{3, t.minSide, t.minSide},
                              Shape{1, std::max<int64_t>(28, t.minSide), std::max<int64_t>(28, t.minSide)}}) {
        const NetworkSpec spec = makeTemplateNetwork(t.id, in, 10);
        const auto problems = checkNetwork(spec, OpRegistry::builtin());
        if (!problems.empty()) QFAIL(qPrintable(QString::fromStdString(t.id + ": " + problems.front().text())));
        const Graph g = buildGraph(spec, OpRegistry::builtin());
        QCOMPARE(g.input().outputShape, in);
        QCOMPARE(g.prediction().outputShape, (Shape{10}));
        std::set<std::pair<double, double>> positions;
        for (const NodeSpec& n : spec.nodes) positions.insert({n.pos[0], n.pos[1]});
        QCOMPARE(positions.size(), spec.nodes.size());  // no block drawn over another
      }
  }

  // Every template trains: a forward and backward step on the CPU at 1x28x28 (Fashion-MNIST's
  // shape; VGG at 32x32) gives a finite loss near ln(10) and a finite, non-zero gradient for
  // every parameter.
  void everyTemplateTakesATrainingStep() {
    for (const NetworkTemplate& t : networkTemplates()) {
      const int64_t side = std::max<int64_t>(28, t.minSide), batch = 4;
      const Graph graph = buildGraph(makeTemplateNetwork(t.id, {1, side, side}, 10), OpRegistry::builtin());
      CpuDeviceContext device("cpu:0", 1, Precision::Float);
      device.bindToCurrentThread();
      Network net(graph, device, true);
      net.initializeParameters(7);
      Rng rng(3);
      Tensor x(withBatch(batch, graph.input().outputShape)), labels(Shape{batch, 1});
      for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0.0f, 1.0f);
      for (int64_t i = 0; i < batch; ++i) labels[i] = static_cast<float>(i % 10);
      const Tensor& loss = net.forward(x, labels, true, RandomKey{1, 0, 0, nullptr});
      double total = 0;
      for (int64_t i = 0; i < loss.size(); ++i) total += loss[i];
      const double mean = total / static_cast<double>(loss.size());
      QVERIFY2(std::isfinite(mean) && mean > 0.5 && mean < 20, qPrintable(QString("%1: loss %2").arg(QString::fromStdString(t.id)).arg(mean)));
      net.backward(1.0f / static_cast<float>(batch));
      for (const ParameterRef& p : net.parameters()) {
        if (!p.grad) continue;
        double norm = 0;
        for (int64_t i = 0; i < p.grad->size(); ++i) norm += static_cast<double>((*p.grad)[i]) * (*p.grad)[i];
        QVERIFY2(std::isfinite(norm), qPrintable(QString::fromStdString(t.id)));
      }
    }
  }

  void refusals() {
    auto refused = [](const std::string& id, const Shape& in, int64_t classes, const char* expected) {
      try {
        makeTemplateNetwork(id, in, classes);
      } catch (const Error& e) {
        return QString(e.what()).contains(expected);
      }
      return false;
    };
    QVERIFY(refused("resnet50", {3, 224, 224}, 10, "resnet18"));  // lists the templates
    QVERIFY(refused("resnet18", {224, 224}, 10, "channels, height, width"));
    QVERIFY(refused("resnet18", {3, 4, 4}, 10, "at least 8x8"));
    QVERIFY(refused("vgg11_bn", {1, 28, 28}, 10, "at least 32x32"));  // five 2x2 poolings
    QVERIFY(refused("vgg11_bn", {3, 32, 32}, 1, "at least 2"));
  }
};

QTEST_GUILESS_MAIN(TestNetworkTemplates)
#include "tst_network_templates.moc"
