// Note [Gradient clipping] on CPU workers: the clip rule; a step whose gradient is above the clip
// leaves gradients of exactly the clip's norm and moves an Sgd network by lr × clip; a clip that
// never triggers changes nothing bit for bit, one that does changes the parameters; the replica's
// record of the norms (the divergence report's largest gradient norm); and a non-finite gradient
// skips the update. The in-process runs on 1 and 2 workers are tst_gradient_clipping's.
#include <QtTest>

#include <omp.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/comm/communicator.h"
#include "engine/core/rng.h"
#include "engine/data/dataset.h"
#include "engine/op_interface/op_registry.h"
#include "engine/optim/gradient_clip.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/replica.h"

using namespace netsmith;

namespace {

constexpr double kLr = 0.1;

Dataset randomDataset(const Graph& graph, int64_t count) {
  Dataset d;
  d.source = d.labelSource = "random";
  d.sampleShape = graph.input().outputShape;
  d.size = count;
  Rng rng(5);
  d.features.resize(static_cast<size_t>(count * numel(d.sampleShape)));
  for (float& v : d.features) v = rng.uniform(0.0f, 1.0f);
  d.labels.resize(static_cast<size_t>(count));
  for (size_t i = 0; i < d.labels.size(); ++i) d.labels[i] = static_cast<float>(i % 10);
  d.numClasses = 10;
  return d;
}

// One CPU worker training the MLP sample with Sgd at kLr, clipping at `clip` (0: off).
struct Worker {
  Project project = loadProject(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj");
  Graph graph = buildGraph(project.network, OpRegistry::builtin());
  Dataset train = randomDataset(graph, 256);
  TrainingPlan plan;
  InProcessGroup group{1, {"cpu:0"}, 60.0};
  std::unique_ptr<CpuDeviceContext> device;
  std::unique_ptr<Replica> replica;
  std::vector<int64_t> order = epochOrder(train.size, 7, 0, true);

  explicit Worker(double clip) {
    project.optimizer.solver = "Sgd";
    project.optimizer.hyper = {{"lr", kLr}};
    project.optimizer.clipGradientNorm = clip;
    project.config.batchSize = 32;
    project.parallel.devices = {"cpu:0"};
    project.parallel.threadsPerDevice = 1;
    plan = planTraining(project, train.size, 1, 1, false);
    device = std::make_unique<CpuDeviceContext>("cpu:0", 1, Precision::Float);
    device->bindToCurrentThread();
    replica = std::make_unique<Replica>(graph, plan, plan.devices[0], *device, group.communicator(0), 7);
  }
  void step(int s) {
    replica->trainStep(train, std::span<const int64_t>(order.data() + s * plan.logicalBatch, plan.logicalBatch), 0,
                       plan.effectiveLr);
  }
  std::vector<float> parameters() {
    std::vector<float> out;
    for (const ParameterRef& p : replica->network().kernelParameters())
      if (p.grad) out.insert(out.end(), p.value->data(), p.value->data() + p.value->size());
    return out;
  }
  double gradientNorm() {
    std::vector<Tensor*> grads;
    for (const ParameterRef& p : replica->network().kernelParameters())
      if (p.grad) grads.push_back(p.grad);
    return std::sqrt(GradientSquaredNorm()(grads));
  }
};

double distance(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
  return std::sqrt(s);
}

}  // namespace

class GradientClipTest : public QObject {
  Q_OBJECT

 private slots:
  void clipRule() {
    QCOMPARE(clipScale(5, 0), 1.0f);   // off
    QCOMPARE(clipScale(5, 10), 1.0f);  // below the clip
    QCOMPARE(clipScale(10, 10), 1.0f);
    QCOMPARE(clipScale(20, 10), 0.5f);
    QCOMPARE(clipScale(std::numeric_limits<double>::infinity(), 10), 1.0f);  // skipped, not scaled
    QCOMPARE(clipScale(std::numeric_limits<double>::quiet_NaN(), 10), 1.0f);
    Tensor a({3}), b({1});
    a[0] = 3, a[1] = 0, a[2] = -4, b[0] = 12;
    std::vector<Tensor*> grads{&a, &b};
    GradientSquaredNorm squaredNorm;
    QCOMPARE(squaredNorm(grads), 169.0);
    scaleGradients(grads, 0.5f);
    QCOMPARE(a[2], -2.0f);
    QCOMPARE(b[0], 6.0f);
    // Pieces on several threads or on one: the same bits (a tensor of 5 pieces and a small one).
    Tensor big({5 * GradientSquaredNorm::kNormPieceFloats + 3}), small({7});
    Rng rng(9);
    for (int64_t i = 0; i < big.size(); ++i) big[i] = rng.uniform(-1.0f, 1.0f);
    for (int64_t i = 0; i < small.size(); ++i) small[i] = rng.uniform(-1.0f, 1.0f);
    std::vector<Tensor*> both{&big, &small};
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const double one = squaredNorm(both);
    omp_set_num_threads(std::max(threads, 3));
    const double several = squaredNorm(both);
    omp_set_num_threads(threads);
    QCOMPARE(several, one);
    double serial = 0;
    for (const Tensor* t : both)
      for (int64_t i = 0; i < t->size(); ++i) serial += double((*t)[i]) * double((*t)[i]);
    QVERIFY(std::abs(one - serial) <= 1e-12 * serial);
  }

  // The first step's norm, unclipped; then a clip at a tenth of it.
  void stepClipsToTheNorm() {
    Worker free(0);
    const std::vector<float> before = free.parameters();
    free.step(0);
    const double norm = free.replica->gradientNorms().last;
    QVERIFY(norm > 0 && std::isfinite(norm));
    QVERIFY(std::abs(free.gradientNorm() - norm) <= 1e-12 * norm);
    QVERIFY(std::abs(distance(before, free.parameters()) - kLr * norm) <= 1e-4 * kLr * norm);
    QCOMPARE(free.replica->gradientNorms().clippedSteps, int64_t{0});

    const double clip = norm / 10;
    Worker clipped(clip);
    clipped.step(0);
    const GradientNorms record = clipped.replica->gradientNorms();
    QCOMPARE(record.last, norm);  // the norm before the clip
    QCOMPARE(record.clippedSteps, int64_t{1});
    QVERIFY2(std::abs(clipped.gradientNorm() - clip) <= 1e-5 * clip,
             qPrintable(QString("gradient norm %1 after a clip at %2").arg(clipped.gradientNorm()).arg(clip)));
    QVERIFY2(std::abs(distance(before, clipped.parameters()) - kLr * clip) <= 1e-4 * kLr * clip,
             qPrintable(QString("moved %1, expected %2").arg(distance(before, clipped.parameters())).arg(kLr * clip)));
  }

  void clipThatNeverTriggersChangesNothing() {
    Worker free(0), loose(1e9), tight(1e-3);
    for (int s = 0; s < 4; ++s) {
      free.step(s);
      loose.step(s);
      tight.step(s);
    }
    QCOMPARE(loose.replica->gradientNorms().clippedSteps, int64_t{0});
    QCOMPARE(loose.replica->fingerprint(), free.replica->fingerprint());
    QCOMPARE(tight.replica->gradientNorms().clippedSteps, int64_t{4});
    QVERIFY(tight.replica->fingerprint() != free.replica->fingerprint());
  }

  // The record: the largest finite norm and its step, and the one before the last step.
  void normRecord() {
    GradientNorms n;
    QVERIFY(std::isnan(n.largest));
    n.observe(2, false, 1);
    n.observe(5, true, 2);
    n.observe(3, false, 3);
    QCOMPARE(n.largest, 5.0);
    QCOMPARE(n.largestStep, int64_t{2});
    n.observe(std::numeric_limits<double>::infinity(), false, 4);
    QCOMPARE(n.firstNonFiniteStep, int64_t{4});
    QCOMPARE(n.largest, 5.0);
    n.observe(9, false, 6);  // step 5 was not observed (a half-precision overflow)
    QCOMPARE(n.largestBefore, 5.0);
    QCOMPARE(n.largestBeforeStep, int64_t{2});
    QCOMPARE(n.largestStep, int64_t{6});
    QCOMPARE(n.steps, int64_t{6});
    QCOMPARE(n.clippedSteps, int64_t{1});
  }

  // A NaN sample makes every gradient NaN: the update is skipped, the parameters stay.
  void nonFiniteGradientSkipsTheUpdate() {
    Worker w(0);
    w.train.features[static_cast<size_t>(w.order[0] * numel(w.train.sampleShape))] = std::numeric_limits<float>::quiet_NaN();
    const std::string before = w.replica->fingerprint();
    w.step(0);
    QVERIFY(w.replica->lastGradientNonFinite());
    QCOMPARE(w.replica->gradientNorms().firstNonFiniteStep, int64_t{1});
    QCOMPARE(w.replica->fingerprint(), before);
    // The diagnosis of that batch names the Input.
    const auto found = w.replica->diagnoseDivergence(
        w.train, std::span<const int64_t>(w.order.data(), w.plan.logicalBatch), 0);
    QVERIFY(found);
    QCOMPARE(found->block, std::string("x"));
  }
};

QTEST_GUILESS_MAIN(GradientClipTest)
#include "tst_gradient_clip.moc"
