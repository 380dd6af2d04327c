// Note [Divergence diagnosis]: on the MLP sample (x → fc1 → relu1 → fc2 → relu2 → fc3 → loss) with
// one layer made to produce a non-finite value, the diagnosis names that layer and the pass: a
// huge weight in fc2 (forward, fc2 with its fused ReLU), a NaN weight (parameters), a huge loss
// gradient (backward, fc3's weight gradient; the loss layer for an infinite one), a non-finite sample (the Input), a weight scaled up
// so that the activations explode while staying finite (forward, by growth, also when a later
// layer overflows); and a healthy
// network gives no finding. Then the report's words (explainDivergence, divergenceMessage).
#include <QtTest>

#include <limits>
#include <string>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/model/network.h"
#include "engine/train/divergence_diagnosis.h"
#include "engine/train/divergence_report.h"

using namespace netsmith;

namespace {

constexpr int64_t kBatch = 16;

struct Fixture {
  Project project = loadProject(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj");
  Graph graph = buildGraph(project.network, OpRegistry::builtin());
  CpuDeviceContext device{"cpu:0", 1, Precision::Float};
  std::unique_ptr<Network> net;
  Tensor x{withBatch(kBatch, graph.input().outputShape)}, labels{Shape{kBatch, 1}};

  Fixture() {
    device.bindToCurrentThread();
    net = std::make_unique<Network>(graph, device);
    net->initializeParameters(7);
    Rng rng(3);
    for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0.0f, 1.0f);
    for (int64_t i = 0; i < kBatch; ++i) labels[i] = static_cast<float>(i % 10);
  }
  Tensor& blob(const std::string& name) {
    for (const ParameterRef& p : net->kernelParameters())
      if (p.name == name) return *p.value;
    qFatal("no blob %s", name.c_str());
  }
  void forward() { net->forward(x, labels, true, RandomKey{1, 0, 0, nullptr}); }
};

QString text(const std::optional<DivergenceFinding>& f) {
  return f ? QString::fromStdString(f->block + " / " + f->pass + " / " + f->finding) : QString("none");
}

}  // namespace

class DivergenceDiagnosisTest : public QObject {
  Q_OBJECT

 private slots:
  void healthyNetworkHasNoFinding() {
    Fixture f;
    QVERIFY(!findNonFiniteParameters(*f.net));
    f.forward();
    QVERIFY2(!findNonFiniteForward(*f.net), qPrintable(text(findNonFiniteForward(*f.net))));
    QVERIFY2(!findExplodingForward(*f.net), qPrintable(text(findExplodingForward(*f.net))));
    QVERIFY2(!findForwardProblem(*f.net), qPrintable(text(findForwardProblem(*f.net))));
    f.net->backward(1.0f / kBatch);
    QVERIFY2(!findNonFiniteBackward(*f.net), qPrintable(text(findNonFiniteBackward(*f.net))));
  }

  // fc2's weights at 1e38: its output overflows to inf (fc2 writes relu2's output: Note [Fused ReLU]).
  void hugeWeightIsNamedInForward() {
    Fixture f;
    Tensor& w = f.blob("fc2/W");
    for (int64_t i = 0; i < w.size(); ++i) w[i] = 1e38f;
    QVERIFY(!findNonFiniteParameters(*f.net));
    f.forward();
    const auto found = findNonFiniteForward(*f.net);
    QVERIFY2(found && found->block == "fc2" && found->pass == "forward", qPrintable(text(found)));
    QVERIFY2(found->finding.find("became inf") != std::string::npos, qPrintable(text(found)));
    QCOMPARE(text(findForwardProblem(*f.net)), text(found));
  }

  void nanWeightIsNamedInParameters() {
    Fixture f;
    f.blob("fc3/b")[2] = std::numeric_limits<float>::quiet_NaN();
    const auto found = findNonFiniteParameters(*f.net);
    QVERIFY2(found && found->block == "fc3" && found->pass == "parameters", qPrintable(text(found)));
    QVERIFY2(found->finding.find("parameter b holds nan") != std::string::npos, qPrintable(text(found)));
  }

  // Samples 100 times larger and a loss gradient of 3e38 per sample: forward stays finite, the
  // loss layer's gradient to fc3 (3e38 · (p − y)) too, and fc3's weight gradient (activations of
  // about 100 times that, summed over the batch) overflows.
  void hugeGradientIsNamedInBackward() {
    Fixture f;
    for (int64_t i = 0; i < f.x.size(); ++i) f.x[i] *= 100;
    f.forward();
    QVERIFY(!findNonFiniteForward(*f.net));
    f.net->backward(3e38f);
    const auto found = findNonFiniteBackward(*f.net);
    QVERIFY2(found && found->block == "fc3" && found->pass == "backward", qPrintable(text(found)));
    QVERIFY2(found->finding.find("the gradient of its parameter W became") != std::string::npos, qPrintable(text(found)));
  }

  // An infinite loss gradient: the loss layer is where backward turns non-finite.
  void infiniteLossGradientNamesTheLoss() {
    Fixture f;
    f.forward();
    f.net->backward(std::numeric_limits<float>::infinity());
    const auto found = findNonFiniteBackward(*f.net);
    QVERIFY2(found && found->block == "loss" && found->pass == "backward", qPrintable(text(found)));
    QVERIFY2(found->finding.find("the gradient it passes back to 'fc3' became") != std::string::npos, qPrintable(text(found)));
  }

  void nonFiniteSampleIsTheInput() {
    Fixture f;
    f.x[5] = std::numeric_limits<float>::infinity();
    f.forward();
    const auto found = findNonFiniteForward(*f.net);
    QVERIFY2(found && found->block == "x" && found->pass == "forward", qPrintable(text(found)));
  }

  // fc1's weights × 1e6 (what Adam at 1e6 does in one step): finite, but fc1's output is about
  // 1e6 times larger than its input; the layers after it scale what they get by about 1.
  void explodingActivationsNameTheFirstLayerThatGrows() {
    Fixture f;
    Tensor& w = f.blob("fc1/W");
    for (int64_t i = 0; i < w.size(); ++i) w[i] *= 1e6f;
    f.forward();
    QVERIFY(!findNonFiniteForward(*f.net));
    const auto found = findExplodingForward(*f.net);
    QVERIFY2(found && found->block == "fc1" && found->pass == "forward", qPrintable(text(found)));
    QVERIFY2(found->finding.find("times the largest value of its input") != std::string::npos, qPrintable(text(found)));
    // fc3 overflows too when its weights are huge: the layer that grew first is the one named.
    Tensor& w3 = f.blob("fc3/W");
    for (int64_t i = 0; i < w3.size(); ++i) w3[i] = 1e38f;
    f.forward();
    QVERIFY(findNonFiniteForward(*f.net) && findNonFiniteForward(*f.net)->block == "fc3");
    QCOMPARE(text(findForwardProblem(*f.net)), text(found));
  }

  // The report's advice comes from the run: a tenth of the failing learning rate and the project
  // value that gives it, a clip at the largest norm before the failing step, a warm-up, and half
  // precision's limits.
  void reportAdvice() {
    Project project = loadProject(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj");
    project.optimizer.solver = "Adam";
    project.optimizer.hyper = {{"alpha", 1e6}};
    project.config.precision = "half";
    DivergenceFacts facts;
    facts.reason = "the training loss became inf";
    facts.epoch = 1;
    facts.iteration = 3;
    facts.globalIteration = 3;
    facts.learningRate = 2e6;  // 2 devices, scale_lr
    facts.finding = DivergenceFinding{"fc2", 3, "forward", "its output became inf"};
    facts.norms.observe(4.0, false, 1);
    facts.norms.observe(7.5, false, 2);
    facts.norms.observe(1e30, false, 3);  // the failing step's own gradient: not a norm to clip at
    facts.firstGlobalIteration = 0;
    facts.project = &project;
    const protocol::Divergence d = explainDivergence(facts);
    QCOMPARE(d.largestGradientNorm, 7.5);
    QCOMPARE(d.largestGradientNormIteration, int64_t{2});
    QCOMPARE(d.block, std::string("fc2"));
    const std::string message = divergenceMessage(d);
    for (const char* expected :
         {"the training loss became inf at epoch 1, iteration 3 (global iteration 3)",
          "it starts in the forward pass of block 'fc2': its output became inf",
          "the largest gradient norm before it was 7.5 (global iteration 2)",
          "lower the learning rate (now 2000000) to 200000, a tenth: optimizer.alpha 100000",
          "clip gradients: optimizer.clip_gradient_norm 7.5", "optimizer.warmup_epochs 1", "half precision",
          "the last one is kept to resume from"})
      QVERIFY2(message.find(expected) != std::string::npos, qPrintable(QString::fromStdString(message) + "\nlacks: " + expected));
    // A project that clips already is told to clip harder; one with a warm-up is not told to warm up.
    project.optimizer.clipGradientNorm = 5;
    project.optimizer.warmupEpochs = 1;
    project.config.precision = "float";
    const std::string second = divergenceMessage(explainDivergence(facts));
    QVERIFY2(second.find("clip_gradient_norm 0.5 (now 5)") != std::string::npos, second.c_str());
    QVERIFY2(second.find("warmup_epochs") == std::string::npos, second.c_str());
    QVERIFY2(second.find("half precision") == std::string::npos, second.c_str());
    // The event's object round-trips.
    const protocol::Divergence back = protocol::Divergence::fromJson(d.toJson(), {"test", ""});
    QCOMPARE(back.toJson().dump(), d.toJson().dump());
  }
};

QTEST_GUILESS_MAIN(DivergenceDiagnosisTest)
#include "tst_divergence_diagnosis.moc"
