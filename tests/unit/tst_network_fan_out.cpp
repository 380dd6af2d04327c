// Network::backward with fan-out: a layer's output read by several layers gets the sum of their
// gradients. A two-input layer whose inputs were both already given a gradient by later layers
// (Add2(a, b) where a and b also feed the layers after it, as in DenseNet-style and NNC graphs)
// sends both of its input gradients to scratch; the gradients equal finite differences of the loss.
#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/model/network.h"

using namespace netsmith;

namespace {

// x -> a, b (Affine 3); s = a + b; t = s * a; u = t + b; u -> SquaredError. Backward reaches u
// first (b gets its first gradient), then t (a gets its first), then s: both of s's inputs have
// a gradient already.
Json fanOutProject(const std::string& join) {
  Json nodes = Json::array();
  nodes.push_back({{"id", "x"}, {"type", "Input"}, {"params", {{"shape", {4}}}}});
  nodes.push_back({{"id", "a"}, {"type", "Affine"}, {"params", {{"n_outmaps", {3}}}}});
  nodes.push_back({{"id", "b"}, {"type", "Affine"}, {"params", {{"n_outmaps", {3}}}}});
  nodes.push_back({{"id", "s"}, {"type", join}});
  nodes.push_back({{"id", "t"}, {"type", "Mul2"}});
  nodes.push_back({{"id", "u"}, {"type", "Add2"}});
  nodes.push_back({{"id", "loss"}, {"type", "SquaredError"}});
  Json links = Json::array({{{"from", "x"}, {"to", "a"}},
                            {{"from", "x"}, {"to", "b"}},
                            {{"from", "a"}, {"to", "s"}, {"port", 0}},
                            {{"from", "b"}, {"to", "s"}, {"port", 1}},
                            {{"from", "s"}, {"to", "t"}, {"port", 0}},
                            {{"from", "a"}, {"to", "t"}, {"port", 1}},
                            {{"from", "t"}, {"to", "u"}, {"port", 0}},
                            {{"from", "b"}, {"to", "u"}, {"port", 1}},
                            {{"from", "u"}, {"to", "loss"}}});
  return {{"format", "netsmith-project"},
          {"version", 1},
          {"name", "fan_out"},
          {"network", {{"nodes", nodes}, {"links", links}}},
          {"dataset", {{"training", {{"format", "csv"}, {"csv", "train.csv"}}}}}};
}

double lossOf(Network& net, const Tensor& x, const Tensor& y) {
  const Tensor& loss = net.forward(x, y, true, RandomKey{1, 0, 0, nullptr});
  double sum = 0;
  for (int64_t i = 0; i < loss.size(); ++i) sum += loss[i];
  return sum;
}

}  // namespace

class NetworkFanOutTest : public QObject {
  Q_OBJECT

 private slots:
  void bothInputsAlreadyHaveGradients_data() {
    QTest::addColumn<QString>("join");
    QTest::newRow("Add2") << "Add2";
    QTest::newRow("Mul2") << "Mul2";
    QTest::newRow("Sub2") << "Sub2";
  }

  void bothInputsAlreadyHaveGradients() {
    QFETCH(QString, join);
    const Graph graph = buildGraph(parseProject(fanOutProject(join.toStdString()), "").network, OpRegistry::builtin());
    CpuDeviceContext device("cpu:0", 1, Precision::Float);
    device.bindToCurrentThread();
    Network net(graph, device);
    net.initializeParameters(5);
    const int64_t batch = 3;
    Rng rng(9);
    Tensor x(Shape{batch, 4}), y(Shape{batch, 3});
    for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(-1.0f, 1.0f);
    for (int64_t i = 0; i < y.size(); ++i) y[i] = rng.uniform(-1.0f, 1.0f);

    lossOf(net, x, y);
    net.backward(1.0f);  // gradient of the summed loss
    std::vector<ParameterRef> params = net.parameters();
    std::vector<std::vector<float>> analytic;
    for (const ParameterRef& p : params) {
      QVERIFY(p.grad);
      analytic.emplace_back(p.grad->data(), p.grad->data() + p.grad->size());
    }
    // Central differences in double around every parameter element.
    const float h = 1e-2f;
    for (size_t k = 0; k < params.size(); ++k) {
      Tensor& w = *params[k].value;
      for (int64_t i = 0; i < w.size(); ++i) {
        const float keep = w[i];
        w[i] = keep + h;
        const double up = lossOf(net, x, y);
        w[i] = keep - h;
        const double down = lossOf(net, x, y);
        w[i] = keep;
        const double numeric = (up - down) / (2.0 * h);
        const double got = analytic[k][static_cast<size_t>(i)];
        QVERIFY2(std::abs(got - numeric) <= 2e-3 * std::max(1.0, std::abs(numeric)),
                 qPrintable(QString("%1[%2]: backward %3, finite difference %4")
                                .arg(QString::fromStdString(params[k].name))
                                .arg(i)
                                .arg(got)
                                .arg(numeric)));
      }
    }
  }
};

QTEST_GUILESS_MAIN(NetworkFanOutTest)
#include "tst_network_fan_out.moc"
