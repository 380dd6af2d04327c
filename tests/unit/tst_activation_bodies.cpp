// The per-element CUDA bodies of the activations that cuDNN has no mode for (GELU, SELU, SoftPlus,
// Mish, HardSigmoid, HardSwish, PReLU; their folders' cuda_math.h), run on the CPU as
// tst_cuda_kernel_bodies does for the older ops: each body's forward and backward against
//   - the op's registered CPU kernel (oneDNN's eltwise for GELU, Mish and HardSwish, an
//     independent implementation; the same bodies for the others, where the CPU kernel shares the
//     formula and this only checks the wiring), and
//   - the closed form, written out here in double: catches a wrong formula in a shared body.
// Inputs cover the saturated ranges and the corners (0, ±2.5, ±3, 6, ±30).
// netsmith-test-labels: asan

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/rng.h"
#include "engine/ops/gelu/cuda_math.h"
#include "engine/ops/hard_sigmoid/cuda_math.h"
#include "engine/ops/hard_swish/cuda_math.h"
#include "engine/ops/mish/cuda_math.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/prelu/cuda_math.h"
#include "engine/ops/prelu/prelu_shape.h"
#include "engine/ops/selu/cuda_math.h"
#include "engine/ops/softplus/cuda_math.h"

Q_DECLARE_METATYPE(std::vector<int64_t>)  // netsmith::Shape, a test column

using namespace netsmith;
namespace body = netsmith::cuda::body;

namespace {

// Worst |got − want| / max(1, |want|) allowed.
constexpr double kExact = 0.0;          // same bodies on both sides
constexpr double kRounding = 2e-6;      // the same double sums in another order, rounded to float (measured 0)
// oneDNN's vectorised tanh/erf/exp against the C library's float functions, and float against
// the double closed form: a few float roundings of values of order 1. Measured on this machine:
// at most 6.6e-7 against oneDNN (GELU tanh's backward), 3.4e-7 against the closed forms. The tanh
// and erf forms of GELU differ by up to 4.7e-4, a wrong formula by far more.
constexpr double kLibm = 2e-6;

double worstError(const float* got, const double* want, int64_t n, int64_t& where) {
  double worst = 0.0;
  where = -1;
  for (int64_t i = 0; i < n; ++i) {
    const double e = std::isnan(got[i]) ? std::numeric_limits<double>::infinity()
                                        : std::fabs(got[i] - want[i]) / std::max(1.0, std::fabs(want[i]));
    if (where < 0 || e > worst) {
      worst = std::max(worst, e);
      where = i;
    }
  }
  return worst;
}

void checkClose(const Tensor& got, const std::vector<double>& want, const Tensor& x, double tolerance,
                const std::string& what) {
  QCOMPARE(static_cast<size_t>(got.size()), want.size());
  int64_t at = -1;
  const double err = worstError(got.data(), want.data(), got.size(), at);
  QVERIFY2(err <= tolerance, qPrintable(QString("%1: error %2 at x = %3 (got %4, want %5), tolerance %6")
                                            .arg(QString::fromStdString(what))
                                            .arg(err)
                                            .arg(double(x[at % x.size()]))
                                            .arg(double(got[at]))
                                            .arg(want[at])
                                            .arg(tolerance)));
}

std::vector<double> asDouble(const Tensor& t) { return std::vector<double>(t.data(), t.data() + t.size()); }

// The op's CPU kernel, forward then backward.
struct CpuRun {
  Tensor y, dx;
  std::vector<Tensor> paramGrads;
};

CpuRun runCpu(DeviceContext& device, const std::string& op, const Json& given, const Shape& sample, const Tensor& x,
              const Tensor& dy, std::vector<Tensor>& params) {
  const OpSchema& schema = OpRegistry::builtin().get(op);
  const Json filled = validateParams(schema, given, "test.params");
  const OpParams p(filled);
  const Shape out = schema.inferShape({sample}, p);
  auto kernel = schema.kernels.at("cpu")(KernelSetup{device, {sample}, out, p});
  CpuRun r{Tensor(x.shape()), Tensor(x.shape()), {}};
  std::vector<Tensor*> paramPtrs, paramGradPtrs;
  for (Tensor& t : params) {
    paramPtrs.push_back(&t);
    r.paramGrads.emplace_back(t.shape());
  }
  for (Tensor& t : r.paramGrads) paramGradPtrs.push_back(&t);
  const std::vector<const Tensor*> inputs{&x};
  const std::vector<Tensor*> inputGrads{&r.dx};
  KernelCall call{.device = device, .inputs = inputs, .params = paramPtrs, .output = r.y, .training = true};
  kernel->forward(call);
  call.outputGrad = &dy;
  call.inputGrads = inputGrads;
  call.paramGrads = paramGradPtrs;
  kernel->backward(call);
  return r;
}

// Random values in [-range, range] with the corners and extremes in the first slots.
Tensor inputs(const Shape& shape, Rng& rng, float range) {
  Tensor x(shape);
  for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(-range, range);
  const float corners[] = {0.0f, -0.0f, 2.5f, -2.5f, 3.0f, -3.0f, 6.0f, -6.0f, 30.0f, -30.0f, 1e-4f, -1e-4f};
  std::copy(std::begin(corners), std::end(corners), x.data());
  return x;
}

template <typename Body>
Tensor runForward(const Body& b, const Tensor& x) {
  Tensor y(x.shape());
  for (int64_t i = 0; i < x.size(); ++i) b(i, x.data(), y.data());
  return y;
}

template <typename Body>
Tensor runBackward(const Body& b, const Tensor& x, const Tensor& dy) {
  Tensor dx(x.shape());
  for (int64_t i = 0; i < x.size(); ++i) b(i, x.data(), dy.data(), dx.data());
  return dx;
}

// An activation's closed form in double: value and derivative at x.
struct ClosedForm {
  std::function<double(double)> f, df;
};

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }
double softplus(double v) { return std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v))); }

ClosedForm closedForm(const std::string& op, const Json& p) {
  constexpr double k0 = 0.79788456080286535588, k1 = 0.044715;  // √(2/π)
  if (op == "GELU" && p.value("approximate", "tanh") == "tanh")
    return {[=](double v) { return 0.5 * v * (1 + std::tanh(k0 * (v + k1 * v * v * v))); },
            [=](double v) {
              const double t = std::tanh(k0 * (v + k1 * v * v * v));
              return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k0 * (1 + 3 * k1 * v * v);
            }};
  if (op == "GELU")
    return {[](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); },
            [](double v) { return 0.5 * (1 + std::erf(v / std::sqrt(2.0))) + v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI); }};
  if (op == "SELU") {
    const double scale = p.value("scale", 1.05070098735548), alpha = p.value("alpha", 1.673263242354377);
    return {[=](double v) { return v > 0 ? scale * v : scale * alpha * std::expm1(v); },
            [=](double v) { return v > 0 ? scale : scale * alpha * std::exp(v); }};
  }
  if (op == "SoftPlus") {
    const double beta = p.value("beta", 1.0);
    return {[=](double v) { return softplus(beta * v) / beta; }, [=](double v) { return sigmoid(beta * v); }};
  }
  if (op == "Mish")
    return {[](double v) { return v * std::tanh(softplus(v)); },
            [](double v) {
              const double t = std::tanh(softplus(v));
              return t + v * (1 - t * t) * sigmoid(v);
            }};
  if (op == "HardSigmoid")
    return {[](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); },
            [](double v) { return v > -2.5 && v < 2.5 ? 0.2 : 0.0; }};
  if (op == "HardSwish")
    return {[](double v) { return v * std::clamp(v + 3, 0.0, 6.0) / 6; },
            [](double v) { return v <= -3 ? 0.0 : v >= 3 ? 1.0 : (2 * v + 3) / 6; }};
  return {};
}

// The body pair of `op` (as its cuda.cu picks them) on the host.
void runBodies(const std::string& op, const Json& p, const Tensor& x, const Tensor& dy, Tensor& y, Tensor& dx) {
  auto run = [&](auto forward, auto backward) {
    y = runForward(forward, x);
    dx = runBackward(backward, x, dy);
  };
  if (op == "GELU" && p.value("approximate", "tanh") == "tanh") run(body::GeluTanhForward{}, body::GeluTanhBackward{});
  else if (op == "GELU") run(body::GeluErfForward{}, body::GeluErfBackward{});
  else if (op == "SELU") {
    const float scale = p.value("scale", 1.05070098735548f), alpha = p.value("alpha", 1.673263242354377f);
    run(body::SeluForward{scale, alpha}, body::SeluBackward{scale, alpha});
  } else if (op == "SoftPlus") {
    const float beta = p.value("beta", 1.0f);
    run(body::SoftPlusForward{beta}, body::SoftPlusBackward{beta});
  } else if (op == "Mish") run(body::MishForward{}, body::MishBackward{});
  else if (op == "HardSigmoid") run(body::HardSigmoidForward{}, body::HardSigmoidBackward{});
  else if (op == "HardSwish") run(body::HardSwishForward{}, body::HardSwishBackward{});
  else QFAIL(qPrintable(QString::fromStdString("no bodies for " + op)));
}

}  // namespace

class TestActivationBodies : public QObject {
  Q_OBJECT

 private:
  CpuDeviceContext m_device{"cpu:0", 2};
  Rng m_rng{20250114};

 private slots:
  void initTestCase() { m_device.bindToCurrentThread(); }

  void elementwise_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("params");
    QTest::addColumn<double>("againstCpu");  // tolerance against the CPU kernel
    QTest::newRow("GELU tanh") << "GELU" << "{}" << kLibm;
    QTest::newRow("GELU erf") << "GELU" << R"({"approximate": "none"})" << kLibm;
    QTest::newRow("SELU") << "SELU" << "{}" << kExact;
    QTest::newRow("SELU scale alpha") << "SELU" << R"({"scale": 2.0, "alpha": 0.5})" << kExact;
    QTest::newRow("SoftPlus") << "SoftPlus" << "{}" << kExact;
    QTest::newRow("SoftPlus beta 3") << "SoftPlus" << R"({"beta": 3.0})" << kExact;
    QTest::newRow("SoftPlus beta 0.25") << "SoftPlus" << R"({"beta": 0.25})" << kExact;
    QTest::newRow("Mish") << "Mish" << "{}" << kLibm;
    QTest::newRow("HardSigmoid") << "HardSigmoid" << "{}" << kExact;
    QTest::newRow("HardSwish") << "HardSwish" << "{}" << kLibm;
  }

  void elementwise() {
    QFETCH(QString, op);
    QFETCH(QString, params);
    QFETCH(double, againstCpu);
    const std::string name = op.toStdString();
    const Json p = Json::parse(params.toStdString());
    const Shape sample{7, 5, 3};
    const Tensor x = inputs(withBatch(3, sample), m_rng, 8.0f);
    Tensor dy(x.shape());
    for (int64_t i = 0; i < dy.size(); ++i) dy[i] = m_rng.uniform(-1.0f, 1.0f);
    std::vector<Tensor> noParams;
    const CpuRun cpu = runCpu(m_device, name, p, sample, x, dy, noParams);
    Tensor y, dx;
    runBodies(name, p, x, dy, y, dx);
    checkClose(y, asDouble(cpu.y), x, againstCpu, name + " forward against the CPU op");
    checkClose(dx, asDouble(cpu.dx), x, againstCpu, name + " backward against the CPU op");

    const ClosedForm form = closedForm(name, p);
    std::vector<double> wantY, wantDx;
    for (int64_t i = 0; i < x.size(); ++i) {
      wantY.push_back(form.f(x[i]));
      wantDx.push_back(form.df(x[i]) * dy[i]);
    }
    checkClose(y, wantY, x, kLibm, name + " forward against the closed form");
    checkClose(dx, wantDx, x, kLibm, name + " backward against the closed form");
  }

  // PReLU: forward, dx and the slope gradient, shared and per channel along base_axis 1 and 2.
  void prelu_data() {
    QTest::addColumn<QString>("params");
    QTest::addColumn<Shape>("sample");
    QTest::newRow("shared") << R"({})" << Shape{7, 5, 3};
    QTest::newRow("channels") << R"({"shared": false})" << Shape{7, 5, 3};
    QTest::newRow("base_axis 2") << R"({"shared": false, "base_axis": 2})" << Shape{7, 5, 3};
    QTest::newRow("features") << R"({"shared": false})" << Shape{11};
  }

  void prelu() {
    QFETCH(QString, params);
    QFETCH(Shape, sample);
    const Json given = Json::parse(params.toStdString());
    const OpSchema& schema = OpRegistry::builtin().get("PReLU");
    const Json filled = validateParams(schema, given, "test.params");
    const ops::PreluGeometry g = ops::preluGeometry(sample, OpParams(filled));
    const Tensor x = inputs(withBatch(3, sample), m_rng, 4.0f);
    Tensor dy(x.shape());
    for (int64_t i = 0; i < dy.size(); ++i) dy[i] = m_rng.uniform(-1.0f, 1.0f);
    std::vector<Tensor> slope;
    slope.emplace_back(Shape{g.channels});
    for (int64_t c = 0; c < g.channels; ++c) slope[0][c] = m_rng.uniform(-0.5f, 0.5f);
    const CpuRun cpu = runCpu(m_device, "PReLU", given, sample, x, dy, slope);

    Tensor y(x.shape()), dx(x.shape()), dslope(slope[0].shape());
    const body::PreluForward forward{g.channels, g.inner};
    const body::PreluBackward backward{g.channels, g.inner};
    std::vector<double> sums(static_cast<size_t>(g.channels), 0.0);  // the GPU's per-slope block sums, in element order
    std::vector<double> wantY, wantDx, wantDslope(static_cast<size_t>(g.channels), 0.0);
    for (int64_t i = 0; i < x.size(); ++i) {
      forward(i, x.data(), slope[0].data(), y.data());
      backward(i, x.data(), slope[0].data(), dy.data(), dx.data());
      const int64_t c = cuda::preluChannel(i, g.channels, g.inner);
      sums[static_cast<size_t>(c)] += cuda::preluSlopeTerm(x[i], dy[i]);
      // Closed form: index (row, channel, j) of a (rows, C, inner) layout.
      QCOMPARE(c, (i / g.inner) % g.channels);
      const double s = slope[0][c];
      wantY.push_back(x[i] > 0 ? x[i] : s * x[i]);
      wantDx.push_back(x[i] > 0 ? dy[i] : s * dy[i]);
      if (x[i] <= 0) wantDslope[static_cast<size_t>(c)] += static_cast<double>(x[i]) * dy[i];
    }
    for (int64_t c = 0; c < g.channels; ++c) dslope[c] = static_cast<float>(sums[static_cast<size_t>(c)]);
    checkClose(y, asDouble(cpu.y), x, kExact, "PReLU forward against the CPU op");
    checkClose(dx, asDouble(cpu.dx), x, kExact, "PReLU dx against the CPU op");
    checkClose(dslope, asDouble(cpu.paramGrads.at(0)), slope[0], kRounding, "PReLU dslope against the CPU op");
    checkClose(y, wantY, x, kLibm, "PReLU forward against the closed form");
    checkClose(dx, wantDx, x, kLibm, "PReLU dx against the closed form");
    checkClose(dslope, wantDslope, slope[0], kLibm, "PReLU dslope against the closed form");
  }
};

QTEST_GUILESS_MAIN(TestActivationBodies)
#include "tst_activation_bodies.moc"
