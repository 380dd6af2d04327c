// Finite-difference gradient check of every registered op on every backend it has a kernel for.
// The rows come from the op registry and each op's examples (Note [Op examples]), so a new op
// gets its rows without an edit here; an op for which no example input can be derived fails and
// asks for an example in its folder.
// netsmith-test-labels: asan
#include <QtTest>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"
#include "support/op_examples.h"

using namespace netsmith;

namespace {

// For QVERIFY2 / QFAIL messages; the string outlives the macro's full expression.
const char* cstr(const std::string& s) { return s.c_str(); }

constexpr int64_t kBatch = 3;
constexpr double kStep = 1e-3;           // finite-difference step on inputs and parameters
constexpr double kRelTolerance = 2e-2;
constexpr double kAbsTolerance = 2e-3;   // for gradients that are close to 0

// Distinct values, spaced more than two steps apart so that no max-pooling window has a tie and
// no perturbation crosses another value or a kink at 0: magnitudes spread over [lo, hi]. With
// kBatch × 75 values per tensor the spacing is about 0.004, twice 2 × kStep.
void fillDistinct(Tensor& t, Rng& rng, float lo, float hi, bool randomSign) {
  const int64_t n = t.size();
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.below(static_cast<uint64_t>(i + 1))]);
  for (int64_t i = 0; i < n; ++i) {
    const float magnitude = lo + (hi - lo) * (static_cast<float>(order[i]) + 0.5f) / static_cast<float>(n);
    t[i] = randomSign && rng.uniform() < 0.5f ? -magnitude : magnitude;
  }
}

void fillInitializer(Tensor& t, const Initializer& init, Rng& rng) {
  for (int64_t i = 0; i < t.size(); ++i) {
    switch (init.kind) {
      case Initializer::Kind::Constant: t[i] = init.a; break;
      case Initializer::Kind::Uniform: t[i] = rng.uniform(init.a, init.b); break;
      case Initializer::Kind::Normal: t[i] = init.a + init.b * rng.normal(); break;
    }
  }
}

bool allFinite(const Tensor& t) {
  for (int64_t i = 0; i < t.size(); ++i)
    if (!std::isfinite(t[i])) return false;
  return true;
}

std::unique_ptr<DeviceContext> makeDevice(const std::string& backend) {
  if (backend == "cpu") {
    auto device = std::make_unique<CpuDeviceContext>("cpu:0", 2);
    device->bindToCurrentThread();
    return device;
  }
  return nullptr;
}

// Everything one forward/backward of a node needs, for one batch size.
struct Bench {
  const OpSchema& schema;
  std::vector<ParamBlob> blobs;
  std::vector<Tensor> inputs, params, inputGrads, paramGrads;
  std::optional<Tensor> target;
  Tensor output, outputGrad;
  std::vector<int64_t> sampleIds;
  std::vector<const Tensor*> inputPtrs;
  std::vector<Tensor*> paramPtrs, inputGradPtrs, paramGradPtrs;

  Bench(const OpSchema& s, const std::vector<Shape>& inShapes, const Shape& outShape, std::vector<ParamBlob> b,
        int64_t batch, Rng& rng, float inputScale = 1.0f)
      : schema(s), blobs(std::move(b)) {
    const bool loss = schema.isLoss();
    for (const Shape& shape : inShapes) {
      Tensor& x = inputs.emplace_back(withBatch(batch, shape));
      // Loss inputs in (0, 1): valid probabilities for BinaryCrossEntropy, fine logits for the rest.
      if (loss) fillDistinct(x, rng, 0.05f, 0.95f, false);
      else fillDistinct(x, rng, 0.05f * inputScale, inputScale, true);
      inputGrads.emplace_back(withBatch(batch, shape));
    }
    if (schema.lossTarget == LossTarget::ClassIndex) {
      Tensor& t = target.emplace(Shape{batch, 1});
      const auto classes = static_cast<uint64_t>(numel(inShapes.at(0)));
      for (int64_t n = 0; n < batch; ++n) t[n] = static_cast<float>(rng.below(classes));
    } else if (schema.lossTarget == LossTarget::SameAsPrediction) {
      Tensor& t = target.emplace(withBatch(batch, inShapes.at(0)));
      for (int64_t i = 0; i < t.size(); ++i) t[i] = rng.uniform();
    }
    for (const ParamBlob& blob : blobs) {
      Tensor& p = params.emplace_back(blob.shape);
      // Trainable blobs get random values so that a zero bias or a unit scale cannot hide a
      // wrong gradient; state blobs (running statistics) keep their initial values.
      if (blob.trainable) {
        for (int64_t i = 0; i < p.size(); ++i) p[i] = rng.uniform(-1.0f, 1.0f);
      } else {
        fillInitializer(p, blob.init, rng);
      }
      paramGrads.emplace_back(blob.shape);
    }
    output.resize(withBatch(batch, outShape));
    outputGrad.resize(output.shape());
    for (int64_t i = 0; i < outputGrad.size(); ++i)
      outputGrad[i] = (rng.uniform() < 0.5f ? -1.0f : 1.0f) * rng.uniform(0.5f, 1.5f);
    for (int64_t n = 0; n < batch; ++n) sampleIds.push_back(1000 + 7 * n);  // not the row index
    for (auto& t : inputs) inputPtrs.push_back(&t);
    for (auto& t : params) paramPtrs.push_back(&t);
    for (auto& t : inputGrads) inputGradPtrs.push_back(&t);
    for (size_t k = 0; k < params.size(); ++k) paramGradPtrs.push_back(blobs[k].trainable ? &paramGrads[k] : nullptr);
  }

  KernelCall call(DeviceContext& device) {
    KernelCall c{.device = device, .inputs = inputPtrs, .params = paramPtrs, .output = output};
    c.target = target ? &*target : nullptr;
    c.training = true;
    c.random = RandomKey{.seed = 20240601, .node = 5, .pass = 2, .sampleIds = sampleIds.data()};
    c.outputGrad = &outputGrad;
    c.inputGrads = inputGradPtrs;
    c.paramGrads = paramGradPtrs;
    return c;
  }

  // The scalar whose gradient is checked: sum(out * r), r = outputGrad, in double.
  double projectedOutput() const {
    double sum = 0.0;
    for (int64_t i = 0; i < output.size(); ++i) sum += static_cast<double>(output[i]) * outputGrad[i];
    return sum;
  }
};

// Compares the analytic gradient of every element of `values` with central differences.
// Returns a description of the worst mismatches, empty when all agree.
std::string compareWithFiniteDifferences(Kernel& kernel, Bench& bench, DeviceContext& device, Tensor& values,
                                         const Tensor& analytic, const std::string& name) {
  std::string report;
  int mismatches = 0;
  for (int64_t i = 0; i < values.size(); ++i) {
    const float original = values[i];
    const float plus = static_cast<float>(original + kStep);
    const float minus = static_cast<float>(original - kStep);
    KernelCall call = bench.call(device);
    values[i] = plus;
    kernel.forward(call);
    const double lossPlus = bench.projectedOutput();
    values[i] = minus;
    kernel.forward(call);
    const double lossMinus = bench.projectedOutput();
    values[i] = original;
    const double numeric = (lossPlus - lossMinus) / (static_cast<double>(plus) - static_cast<double>(minus));
    const double exact = analytic[i];
    const double tolerance = kAbsTolerance + kRelTolerance * std::max(std::fabs(numeric), std::fabs(exact));
    if (!(std::fabs(numeric - exact) <= tolerance)) {
      if (++mismatches <= 5)
        report += format("  {}[{}] = {}: analytic {}, numeric {}\n", name, i, original, exact, numeric);
    }
  }
  if (mismatches > 5) report += format("  ... {} mismatches in {} of {} elements\n", mismatches, name, values.size());
  return report;
}

std::string describe(const OpSchema& schema, const std::vector<Shape>& inputs, const Json& params) {
  std::string shapes;
  for (const Shape& s : inputs) shapes += (shapes.empty() ? "(" : ", (") + shapeToString(s) + ")";
  return format("{} on {} with params {}", schema.name, shapes, params.dump());
}

void checkOp(const OpSchema& schema, const std::string& backend, const std::vector<Shape>& inShapes,
             const Json& given, float inputScale) {
  const std::string what = describe(schema, inShapes, given);
  const Json params = validateParams(schema, given, "params");
  const OpParams p(params);
  const Shape outShape = schema.inferShape(inShapes, p);
  std::vector<ParamBlob> blobs = schema.parameterBlobs ? schema.parameterBlobs(inShapes, p) : std::vector<ParamBlob>{};
  if (schema.isLoss())
    QVERIFY2(outShape == Shape{1}, cstr(format("{}: a loss must output one value per sample, got ({})", what,
                                                     shapeToString(outShape))));

  std::unique_ptr<DeviceContext> device = makeDevice(backend);
  if (!device) QSKIP(cstr(format("this test cannot create a '{}' device; its rows compare against the CPU "
                                       "in the GPU tests", backend)));
  std::unique_ptr<Kernel> kernel = schema.kernels.at(backend)(KernelSetup{*device, inShapes, outShape, p});
  QVERIFY(kernel);

  Rng rng(0x5eed0000u + std::hash<std::string>{}(schema.name) % 1000);

  // A larger batch first: a kernel must cope with the batch size changing between calls.
  {
    Bench warmUp(schema, inShapes, outShape, blobs, kBatch + 2, rng, inputScale);
    KernelCall call = warmUp.call(*device);
    kernel->forward(call);
    kernel->backward(call);
    QVERIFY2(allFinite(warmUp.output), cstr(what + ": non-finite output with batch " +
                                                  std::to_string(kBatch + 2)));
  }

  Bench bench(schema, inShapes, outShape, blobs, kBatch, rng, inputScale);
  std::vector<Tensor> inputsBefore;
  for (const Tensor& t : bench.inputs) inputsBefore.push_back(t.clone());
  for (Tensor& g : bench.inputGrads) g.fill(std::nanf(""));  // backward must overwrite every element
  for (Tensor& g : bench.paramGrads) g.fill(std::nanf(""));
  {
    KernelCall call = bench.call(*device);
    kernel->forward(call);
    QVERIFY2(allFinite(bench.output), cstr(what + ": non-finite output"));
    kernel->backward(call);
  }
  for (size_t k = 0; k < bench.inputs.size(); ++k) {
    QVERIFY2(std::equal(bench.inputs[k].data(), bench.inputs[k].data() + bench.inputs[k].size(),
                        inputsBefore[k].data()),
             cstr(format("{}: input {} was modified by forward or backward", what, k)));
    QVERIFY2(allFinite(bench.inputGrads[k]),
             cstr(format("{}: the gradient of input {} has elements backward did not write (or not finite)",
                               what, k)));
  }
  for (size_t k = 0; k < bench.params.size(); ++k) {
    if (!bench.blobs[k].trainable) continue;
    QVERIFY2(allFinite(bench.paramGrads[k]),
             cstr(format("{}: the gradient of parameter {} has elements backward did not write (or not finite)",
                               what, bench.blobs[k].name)));
  }

  std::string report;
  for (size_t k = 0; k < bench.inputs.size(); ++k) {
    const std::string port = schema.inputs[std::min(k, schema.inputs.size() - 1)];
    report += compareWithFiniteDifferences(*kernel, bench, *device, bench.inputs[k], bench.inputGrads[k],
                                           format("input {} ({})", k, port));
  }
  for (size_t k = 0; k < bench.params.size(); ++k) {
    if (!bench.blobs[k].trainable) continue;
    report += compareWithFiniteDifferences(*kernel, bench, *device, bench.params[k], bench.paramGrads[k],
                                           "param " + bench.blobs[k].name);
  }
  QVERIFY2(report.empty(), cstr(format("{}: analytic and numeric gradients differ:\n{}", what, report)));
}

const OpSchema& requireOp(const char* name) { return OpRegistry::builtin().get(name); }

}  // namespace

class TestOpGradients : public QObject {
  Q_OBJECT

 private slots:
  void gradients_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("variant");
    for (const OpSchema* schema : OpRegistry::builtin().all()) {
      if (schema->isInput) continue;
      // Every op needs a CPU kernel (the reference for the other backends), so the CPU row
      // exists even when the kernel does not, and fails.
      std::vector<std::string> backends{"cpu"};
      for (const auto& [key, factory] : schema->kernels)
        if (key != "cpu") backends.push_back(key);
      for (const std::string& backend : backends) {
        const QString op = QString::fromStdString(schema->name);
        const QString b = QString::fromStdString(backend);
        for (const std::string& name : test::exampleNames(*schema)) {
          const QString variant = QString::fromStdString(name);
          QTest::newRow(qPrintable(op + "/" + b + (variant.isEmpty() ? "" : "/" + variant))) << op << b << variant;
        }
      }
    }
  }

  void gradients() {
    QFETCH(QString, op);
    QFETCH(QString, backend);
    QFETCH(QString, variant);
    const OpSchema& schema = OpRegistry::builtin().get(op.toStdString());
    QVERIFY2(schema.kernels.count(backend.toStdString()),
             cstr(format("{} has no '{}' kernel: every op needs one (register it in the op's schema.cpp)",
                               schema.name, backend.toStdString())));

    std::string why;
    const std::optional<OpExample> example = test::findExample(schema, variant.toStdString(), why);
    if (!example)
      QFAIL(cstr(format("no example input works for {} (tried {}): declare one without a name in its folder's "
                        "schema.cpp (OpSchema::examples, Note [Op examples])",
                        schema.name, why)));
    try {
      checkOp(schema, backend.toStdString(), example->inputs, example->params, example->inputScale);
    } catch (const Error& e) {
      QFAIL(cstr(format("{}: {}", describe(schema, example->inputs, example->params), e.what())));
    }
  }

  // Dropout's mask is a pure function of (key, sample id, element): it does not depend on the
  // batch position, survivors are scaled by 1 / (1 - p), backward applies the same mask, and
  // inference passes the input through.
  void dropoutMask() {
    const OpSchema& schema = requireOp("Dropout");
    const Json params = validateParams(schema, Json{{"p", 0.3}}, "params");
    const OpParams p(params);
    const Shape sample{4, 5, 5};
    CpuDeviceContext device("cpu:0", 2);
    device.bindToCurrentThread();
    auto kernel = schema.kernels.at("cpu")(KernelSetup{device, {sample}, sample, p});

    constexpr int64_t kRows = 3;
    const int64_t perSample = numel(sample);
    Tensor x(withBatch(kRows, sample)), y(x.shape()), dy(x.shape()), dx(x.shape());
    Rng rng(7);
    for (int64_t i = 0; i < x.size(); ++i) {
      x[i] = rng.uniform(0.5f, 1.5f);  // never 0, so a zero output means a dropped element
      dy[i] = rng.uniform(-1.0f, 1.0f);
    }
    std::vector<int64_t> ids{42, 7, 99};
    const Tensor* inputs[] = {&x};
    Tensor* grads[] = {&dx};
    KernelCall call{.device = device, .inputs = inputs, .params = {}, .output = y};
    call.training = true;
    call.random = RandomKey{.seed = 11, .node = 3, .pass = 1, .sampleIds = ids.data()};
    call.outputGrad = &dy;
    call.inputGrads = grads;
    kernel->forward(call);
    kernel->backward(call);
    const float scale = 1.0f / 0.7f;
    int64_t dropped = 0;
    for (int64_t n = 0; n < kRows; ++n) {
      for (int64_t e = 0; e < perSample; ++e) {
        const int64_t i = n * perSample + e;
        const bool drop = call.random.uniform(n, e) < 0.3f;
        dropped += drop;
        QCOMPARE(y[i], drop ? 0.0f : x[i] * scale);
        QCOMPARE(dx[i], drop ? 0.0f : dy[i] * scale);
      }
    }
    // 300 elements at p = 0.3: about 90 dropped.
    QVERIFY2(dropped > 50 && dropped < 130, cstr(format("{} of 300 dropped at p = 0.3", dropped)));

    // The same samples in another order get the same masks.
    Tensor x2(x.shape()), y2(x.shape());
    const int64_t perm[] = {2, 0, 1};
    std::vector<int64_t> ids2(kRows);
    for (int64_t n = 0; n < kRows; ++n) {
      ids2[n] = ids[perm[n]];
      std::copy_n(x.data() + perm[n] * perSample, perSample, x2.data() + n * perSample);
    }
    const Tensor* inputs2[] = {&x2};
    KernelCall call2{.device = device, .inputs = inputs2, .params = {}, .output = y2};
    call2.training = true;
    call2.random = call.random;
    call2.random.sampleIds = ids2.data();
    kernel->forward(call2);
    for (int64_t n = 0; n < kRows; ++n)
      QVERIFY(std::equal(y2.data() + n * perSample, y2.data() + (n + 1) * perSample, y.data() + perm[n] * perSample));

    // Another epoch, another mask.
    call.random.pass = 2;
    Tensor y3(x.shape());
    KernelCall call3{.device = device, .inputs = inputs, .params = {}, .output = y3};
    call3.training = true;
    call3.random = call.random;
    kernel->forward(call3);
    QVERIFY(!std::equal(y3.data(), y3.data() + y3.size(), y.data()));

    // Inference: identity, forward and backward.
    call.training = false;
    kernel->forward(call);
    kernel->backward(call);
    QVERIFY(std::equal(y.data(), y.data() + y.size(), x.data()));
    QVERIFY(std::equal(dx.data(), dx.data() + dx.size(), dy.data()));
  }

  // Loss values at points where they are known in closed form, and at logits large enough to
  // overflow a naive formula.
  void lossValues_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("params");
    QTest::addColumn<QVector<float>>("x");
    QTest::addColumn<QVector<float>>("t");
    QTest::addColumn<double>("expected");
    const double ln2 = std::log(2.0);
    QTest::newRow("SoftmaxCrossEntropy uniform") << "SoftmaxCrossEntropy" << "{}" << QVector<float>{0, 0}
                                                 << QVector<float>{1} << ln2;
    QTest::newRow("SoftmaxCrossEntropy large") << "SoftmaxCrossEntropy" << "{}" << QVector<float>{1000, 0, -1000}
                                               << QVector<float>{1} << 1000.0;
    QTest::newRow("SigmoidCrossEntropy") << "SigmoidCrossEntropy" << "{}" << QVector<float>{0, 1000, -1000}
                                         << QVector<float>{1, 1, 1} << ln2 + 0.0 + 1000.0;
    QTest::newRow("BinaryCrossEntropy") << "BinaryCrossEntropy" << "{}" << QVector<float>{0.5f, 0.25f}
                                        << QVector<float>{1, 0} << ln2 - std::log(0.75);
    QTest::newRow("BinaryCrossEntropy saturated") << "BinaryCrossEntropy" << "{}" << QVector<float>{1.0f}
                                                  << QVector<float>{1} << -std::log(1.0 - 1e-7);
    QTest::newRow("SquaredError") << "SquaredError" << "{}" << QVector<float>{1, 2} << QVector<float>{3, 2} << 4.0;
    QTest::newRow("HuberLoss") << "HuberLoss" << R"({"delta": 1})" << QVector<float>{0.5f, 3}
                               << QVector<float>{0, 0} << 0.25 + 5.0;
    QTest::newRow("AbsoluteError") << "AbsoluteError" << "{}" << QVector<float>{1, 2, -0.5f}
                                   << QVector<float>{3, 2, 0.25f} << 2.75;
    // KL(t || x) = sum t log(t / x): a one-hot target gives -log x[label]; t = 0 adds nothing.
    QTest::newRow("KLDivergence one-hot") << "KLDivergence" << "{}" << QVector<float>{0.5f, 0.5f}
                                          << QVector<float>{1, 0} << ln2;
    QTest::newRow("KLDivergence soft") << "KLDivergence" << "{}" << QVector<float>{0.5f, 0.5f}
                                       << QVector<float>{0.25f, 0.75f}
                                       << 0.25 * std::log(0.5) + 0.75 * std::log(1.5);
    QTest::newRow("KLDivergence equal") << "KLDivergence" << "{}" << QVector<float>{0.2f, 0.8f}
                                        << QVector<float>{0.2f, 0.8f} << 0.0;
    // A prediction of 0 where the target is not: clamped to 1e-7, a large finite loss.
    QTest::newRow("KLDivergence saturated") << "KLDivergence" << "{}" << QVector<float>{0.0f, 1.0f}
                                            << QVector<float>{1, 0} << -std::log(1e-7);
  }

  // CategoricalCrossEntropy reads probabilities: -log x[label]; a probability of 0 for the label
  // is taken as FLT_MIN, as nnabla does, giving -log(FLT_MIN) = 87.34 rather than infinity.
  void categoricalCrossEntropyValues_data() {
    QTest::addColumn<QVector<float>>("x");
    QTest::addColumn<float>("label");
    QTest::addColumn<double>("expected");
    QTest::addColumn<double>("expectedGradient");  // of x[label], weight 1
    QTest::newRow("uniform") << QVector<float>{0.5f, 0.5f} << 1.0f << std::log(2.0) << -2.0;
    QTest::newRow("three classes") << QVector<float>{0.2f, 0.05f, 0.75f} << 2.0f << -std::log(0.75) << -1.0 / 0.75;
    QTest::newRow("certain") << QVector<float>{0.0f, 1.0f} << 1.0f << 0.0 << -1.0;
    QTest::newRow("zero for the label") << QVector<float>{1.0f, 0.0f} << 1.0f
                                        << -std::log(static_cast<double>(FLT_MIN))
                                        << -1.0 / static_cast<double>(FLT_MIN);
  }
  void categoricalCrossEntropyValues() {
    QFETCH(QVector<float>, x);
    QFETCH(float, label);
    QFETCH(double, expected);
    QFETCH(double, expectedGradient);
    const OpSchema& schema = requireOp("CategoricalCrossEntropy");
    const Json filled = validateParams(schema, nullptr, "params");
    const OpParams p(filled);
    const Shape sample{x.size()};
    CpuDeviceContext device("cpu:0", 1);
    auto kernel = schema.kernels.at("cpu")(KernelSetup{device, {sample}, Shape{1}, p});
    Tensor in(withBatch(1, sample)), target(Shape{1, 1}), out(Shape{1, 1}), weight(Shape{1, 1}), dx(in.shape());
    std::copy(x.begin(), x.end(), in.data());
    target[0] = label;
    weight[0] = 1.0f;
    const Tensor* inputs[] = {&in};
    Tensor* grads[] = {&dx};
    KernelCall call{.device = device, .inputs = inputs, .params = {}, .output = out};
    call.target = &target;
    call.outputGrad = &weight;
    call.inputGrads = grads;
    kernel->forward(call);
    kernel->backward(call);
    QVERIFY2(std::fabs(out[0] - expected) <= 1e-5 * std::max(1.0, std::fabs(expected)),
             cstr(format("loss {}, expected {}", out[0], expected)));
    for (int64_t c = 0; c < dx.size(); ++c) {
      const double want = c == static_cast<int64_t>(label) ? expectedGradient : 0.0;
      QVERIFY2(std::isfinite(dx[c]) && std::fabs(dx[c] - want) <= 1e-5 * std::max(1.0, std::fabs(want)),
               cstr(format("dx[{}] = {}, expected {}", c, dx[c], want)));
    }
  }

  void lossValues() {
    QFETCH(QString, op);
    QFETCH(QString, params);
    QFETCH(QVector<float>, x);
    QFETCH(QVector<float>, t);
    QFETCH(double, expected);
    const OpSchema& schema = requireOp(qPrintable(op));
    const Json filled = validateParams(schema, Json::parse(params.toStdString()), "params");
    const OpParams p(filled);
    const Shape sample{x.size()};
    CpuDeviceContext device("cpu:0", 1);
    auto kernel = schema.kernels.at("cpu")(KernelSetup{device, {sample}, Shape{1}, p});
    Tensor in(withBatch(1, sample)), target(Shape{1, t.size()}), out(Shape{1, 1});
    std::copy(x.begin(), x.end(), in.data());
    std::copy(t.begin(), t.end(), target.data());
    const Tensor* inputs[] = {&in};
    KernelCall call{.device = device, .inputs = inputs, .params = {}, .output = out};
    call.target = &target;
    kernel->forward(call);
    QVERIFY2(std::fabs(out[0] - expected) <= 1e-5 * std::max(1.0, std::fabs(expected)),
             cstr(format("{} gave {}, expected {}", op.toStdString(), out[0], expected)));
  }

  void softmaxCrossEntropyRejectsBadLabels() {
    const OpSchema& schema = requireOp("SoftmaxCrossEntropy");
    const Json filled = validateParams(schema, nullptr, "params");
    const OpParams p(filled);
    CpuDeviceContext device("cpu:0", 1);
    auto kernel = schema.kernels.at("cpu")(KernelSetup{device, {Shape{4}}, Shape{1}, p});
    Tensor in(Shape{2, 4}), target(Shape{2, 1}), out(Shape{2, 1});
    in.fill(0.0f);
    target[0] = 1;
    target[1] = 4;
    const Tensor* inputs[] = {&in};
    KernelCall call{.device = device, .inputs = inputs, .params = {}, .output = out};
    call.target = &target;
    try {
      kernel->forward(call);
      QFAIL("a label equal to the class count was accepted");
    } catch (const Error& e) {
      const std::string message = e.what();
      QVERIFY2(message.find("label 4") != std::string::npos && message.find("4 classes") != std::string::npos,
               e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestOpGradients)
#include "tst_op_gradients.moc"
