// Note [Fused ReLU]: a layer that writes its ReLU's output itself computes exactly what the
// layer and the ReLU compute apart — the loss, the prediction and every gradient bit for bit —
// in float32 and in bfloat16, and the fusion happens where it should (not where the layer's
// output has another reader).
#include <QtTest>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/cpu/cpu_precision.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/model/network.h"

using namespace netsmith;

namespace {

struct StepResult {
  std::vector<float> loss, prediction;
  std::vector<std::vector<float>> grads;
  int fused = 0;
};

std::vector<float> values(const Tensor& t) { return std::vector<float>(t.data(), t.data() + t.size()); }

// One training step (forward, backward) and one inference forward on a fixed random batch.
StepResult step(const Graph& graph, Precision precision, bool fuse, int64_t batch) {
  CpuDeviceContext device("cpu:0", 2, precision);
  device.bindToCurrentThread();
  Network net(graph, device, fuse);
  net.initializeParameters(7);
  Rng rng(3);
  Tensor x(withBatch(batch, graph.input().outputShape)), labels(Shape{batch, 1});
  for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0.0f, 1.0f);
  for (int64_t i = 0; i < batch; ++i) labels[i] = static_cast<float>(i % 10);
  StepResult r;
  r.fused = net.fusedRelus();
  r.loss = values(net.forward(x, labels, true, RandomKey{1, 0, 0, nullptr}));
  net.backward(1.0f / static_cast<float>(batch));
  for (const ParameterRef& p : net.parameters())
    if (p.grad) r.grads.push_back(values(*p.grad));
  net.forward(x, labels, false, RandomKey{1, 0, 0, nullptr});
  r.prediction = values(net.prediction());
  return r;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

class FusedReluTest : public QObject {
  Q_OBJECT

 private slots:
  void fusedEqualsUnfused_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("fusions");
    // LeNet: conv1+relu1, conv2+relu2, fc1+relu3. MLP: both hidden Affines. ResNet: its ReLUs
    // follow BatchNormalization or a skip Add2, which do not fuse.
    QTest::newRow("lenet float") << "fashion_mnist_lenet" << "float" << 3;
    QTest::newRow("mlp float") << "fashion_mnist_mlp" << "float" << 2;
    QTest::newRow("resnet float") << "fashion_mnist_resnet" << "float" << 0;
    QTest::newRow("lenet bfloat16") << "fashion_mnist_lenet" << "bfloat16" << 3;
    QTest::newRow("mlp bfloat16") << "fashion_mnist_mlp" << "bfloat16" << 2;
  }

  void fusedEqualsUnfused() {
    QFETCH(QString, sample);
    QFETCH(QString, precision);
    QFETCH(int, fusions);
    const Precision p = parsePrecision(precision.toStdString());
    if (p == Precision::BFloat16 && cpu::bf16Support() == cpu::Bf16Support::None) QSKIP("no bf16 on this CPU");
    const Project project = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/" + sample.toStdString() + ".nsproj");
    const Graph graph = buildGraph(project.network, OpRegistry::builtin());
    // 37: a batch that is no multiple of a SIMD width or of the convolutions' chunks.
    const StepResult fused = step(graph, p, true, 37);
    const StepResult plain = step(graph, p, false, 37);
    QCOMPARE(plain.fused, 0);
    QCOMPARE(fused.fused, fusions);
    QVERIFY(sameBits(fused.loss, plain.loss));
    QVERIFY(sameBits(fused.prediction, plain.prediction));
    QCOMPARE(fused.grads.size(), plain.grads.size());
    for (size_t i = 0; i < fused.grads.size(); ++i) QVERIFY2(sameBits(fused.grads[i], plain.grads[i]), qPrintable(QString::number(i)));
  }
};

QTEST_GUILESS_MAIN(FusedReluTest)
#include "tst_fused_relu.moc"
