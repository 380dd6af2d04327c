// The custom CUDA kernels' arithmetic, run on the CPU (issue 13, item 3). Each kernel's
// per-element body, and for the reductions the per-element term and the per-channel / per-row
// finishing step, is an NS_HOST_DEVICE function in a header next to the kernel (cuda_math.h,
// pooling_math.h, elementwise_loss_body.h, elementwise_bodies.h). Here a plain host loop calls
// those same functions — the reductions summed in a plain loop where the GPU uses a block tree —
// and the result is compared with the registered CPU kernel of the op, forward and backward, on
// odd shapes (batch 3, 7 channels, 5×3 planes) and 70,000 channels. No GPU and no CUDA headers
// are needed. The GPU itself may differ from these host runs by the order of its block sums
// (in double for every sum but GlobalAveragePooling's) and by nvcc's fused multiply-adds: a few
// float roundings, which tests/gpu checks on a GPU.
//
// Ops whose CUDA kernels are cuDNN or cuBLAS (Convolution, Deconvolution, ReLU, ReLU6, Sigmoid,
// Tanh, ELU, Swish, Softmax; Affine's GEMMs) or a strided copy (Concatenate, Flatten, Reshape)
// have no body of ours to test. The bodies of GELU, SELU, SoftPlus, Mish, HardSigmoid, HardSwish
// and PReLU are checked in tst_activation_bodies (this file is at its size limit). The shape and
// arithmetic layers (Note [Index views], Interpolate, the scalar ops) have no separate CPU
// implementation to compare with: their CPU kernels run the same bodies, and tst_index_views
// checks those against closed forms.
// netsmith-test-labels: asan

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/cuda/elementwise_bodies.h"
#include "engine/backend/cuda/elementwise_loss_body.h"
#include "engine/backend/cuda/pooling_math.h"
#include "engine/core/error.h"
#include "engine/core/reduction_tree.h"
#include "engine/core/rng.h"
#include "engine/ops/affine/cuda_math.h"
#include "engine/ops/batch_normalization/cuda_math.h"
#include "engine/ops/binary_cross_entropy/cuda_math.h"
#include "engine/ops/dropout/cuda_math.h"
#include "engine/ops/global_average_pooling/cuda_math.h"
#include "engine/ops/huber_loss/cuda_math.h"
#include "engine/ops/leaky_relu/cuda_math.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/pooling_rules.h"
#include "engine/ops/sigmoid_cross_entropy/cuda_math.h"
#include "engine/ops/softmax_cross_entropy/cuda_math.h"
#include "engine/ops/squared_error/cuda_math.h"

using namespace netsmith;
namespace body = netsmith::cuda::body;
namespace bn = netsmith::cuda::bn;
namespace pool = netsmith::cuda::pool;
namespace sce = netsmith::cuda::sce;

namespace {

// ---- Tolerances: worst |got − want| / max(1, |want|) allowed. A wrong formula, index or slice
// gives errors of order 0.01 to 1 (or a NaN where the CPU has none): every tolerance below is far
// under that.
// Same float operations in the same order as the CPU kernel (element-wise maps, pooling windows,
// the dropout mask, the losses' per-element gradients in double rounded once): equal bit for bit.
constexpr double kExact = 0.0;
// One float rounding apart: the body and the CPU kernel compute the same double expression but may
// round a double sum at another point, or oneDNN adds Affine's bias inside its GEMM rather than
// after it (a few ulps of values of order 1-15). Measured on this machine: 0 (same roundings).
constexpr double kRounding = 2e-6;
// Float sums in another order: the CPU kernels sum a plane (GlobalAveragePooling) or each sample's
// row of a channel (BatchNormalization) in float with `omp simd` lanes, the bodies sequentially
// (in double for BatchNormalization). A float sum of S values is within S·2^-24 of the exact one
// relative to Σ|values|, so with S ≤ 77 here and normalized values of order 1 the outputs agree
// to a few 1e-6. Measured: at most 1.9e-6 (BatchNormalization's dx over 70,000 channels of 6
// values, where a small variance amplifies the difference), 3e-8 for GlobalAveragePooling.
constexpr double kSumOrder = 1e-5;

// Worst error as above; a NaN must meet a NaN (NaN propagation is part of the maths) and sizes
// must agree. `where` gets the worst index.
double worstError(const float* got, const float* want, int64_t n, int64_t& where) {
  double worst = 0.0;
  where = -1;
  for (int64_t i = 0; i < n; ++i) {
    double e;
    if (std::isnan(got[i]) || std::isnan(want[i]))
      e = std::isnan(got[i]) && std::isnan(want[i]) ? 0.0 : std::numeric_limits<double>::infinity();
    else if (got[i] == want[i])
      e = 0.0;  // also equal infinities
    else
      e = std::fabs(static_cast<double>(got[i]) - want[i]) / std::max(1.0, std::fabs(static_cast<double>(want[i])));
    if (where < 0 || e > worst) {
      worst = std::max(worst, e);
      where = i;
    }
  }
  return worst;
}

#define CHECK_CLOSE(got, want, n, tolerance, what)                                                              \
  do {                                                                                                          \
    int64_t at_ = -1;                                                                                           \
    const double err_ = worstError((got), (want), (n), at_);                                                    \
    QVERIFY2(err_ <= (tolerance),                                                                               \
             qPrintable(QString("%1: error %2 at %3 (body %4, CPU op %5), tolerance %6")                        \
                            .arg(QString::fromStdString(what))                                                  \
                            .arg(err_)                                                                          \
                            .arg(at_)                                                                           \
                            .arg(at_ >= 0 ? double((got)[at_]) : 0.0)                                           \
                            .arg(at_ >= 0 ? double((want)[at_]) : 0.0)                                          \
                            .arg(tolerance)));                                                                  \
  } while (false)

#define CHECK_TENSOR(got, want, tolerance, what)                                                   \
  do {                                                                                             \
    QCOMPARE((got).size(), (want).size());                                                         \
    CHECK_CLOSE((got).data(), (want).data(), (got).size(), tolerance, std::string(what));          \
  } while (false)

// One layer with the op's registered CPU kernel, as the graph runner makes it.
struct Layer {
  Shape input;   // per sample (first input)
  Shape output;  // per sample
  std::unique_ptr<Kernel> kernel;
};

Layer cpuLayer(DeviceContext& device, const std::string& type, const Json& given, const std::vector<Shape>& inputs) {
  const OpSchema& schema = OpRegistry::builtin().get(type);
  const Json params = validateParams(schema, given, "test.params");
  const OpParams p(params);
  Layer l;
  l.input = inputs.at(0);
  l.output = schema.inferShape(inputs, p);
  const KernelSetup setup{device, inputs, l.output, p};
  l.kernel = schema.kernels.at("cpu")(setup);
  return l;
}

Tensor randomTensor(const Shape& shape, Rng& rng, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(shape);
  for (int64_t i = 0; i < t.size(); ++i) t[i] = rng.uniform(lo, hi);
  return t;
}

Tensor copyOf(const Tensor& t) { return t.clone(); }

// ---- Host loops over the bodies, as gridStrideKernel runs them: body(i, args...) for each i.
template <typename Body, typename... Args>
void forEachElement(int64_t n, const Body& b, Args... args) {
  for (int64_t i = 0; i < n; ++i) b(i, args...);
}

// ---- BatchNormalization: the two passes of batch_normalization/cuda.cu on the host.
struct BnRun {
  std::vector<float> mean, invStd, k;
  std::vector<double> partials;
};

// Pass 1 (channelPartials): each (channel, slice) sums its terms, here in a plain loop.
void bnPartials(int mode, const float* x, const float* dy, const float* mean, int64_t batch, int64_t C, int64_t S,
                std::vector<double>& partials) {
  partials.assign(static_cast<size_t>(C * bn::kSlices * 2), 0.0);
  for (int64_t c = 0; c < C; ++c) {
    const float shift = mode == 0 ? x[c * S] : mean[c];
    for (int slice = 0; slice < bn::kSlices; ++slice) {
      const bn::Range r = bn::sliceOf(batch * S, slice);
      double a = 0.0, b = 0.0;
      for (int64_t j = r.begin; j < r.end; ++j) {
        const int64_t at = bn::valueIndex(j, c, C, S);
        if (mode == 0)
          bn::addStatisticsTerm(x[at], shift, a, b);
        else
          bn::addGradientTerm(x[at], dy[at], shift, a, b);
      }
      partials[static_cast<size_t>((c * bn::kSlices + slice) * 2)] = a;
      partials[static_cast<size_t>((c * bn::kSlices + slice) * 2 + 1)] = b;
    }
  }
}

void bnForward(BnRun& run, const Tensor& x, float* y, const float* beta, const float* gamma, float* runningMean,
               float* runningVar, int64_t C, int64_t S, float eps, float decay, bool batchStats) {
  const int64_t batch = x.dim(0), count = batch * S;
  run.mean.assign(static_cast<size_t>(C), 0.0f);
  run.invStd.assign(static_cast<size_t>(C), 0.0f);
  if (batchStats) {
    const double unbias = count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1) : 1.0;
    bnPartials(0, x.data(), nullptr, nullptr, batch, C, S, run.partials);
    for (int64_t c = 0; c < C; ++c) {
      double sum, sumSquares;
      bn::sumPartials(run.partials.data(), c, sum, sumSquares);
      bn::finishStatistics(sum, sumSquares, x[c * S], count, eps, decay, unbias, run.mean[c], run.invStd[c],
                           runningMean[c], runningVar[c]);
    }
  } else {
    for (int64_t c = 0; c < C; ++c) bn::runningStatistics(runningMean[c], runningVar[c], eps, run.mean[c], run.invStd[c]);
  }
  forEachElement(x.size(), bn::Normalize{C, S}, x.data(), y, run.mean.data(), run.invStd.data(), gamma, beta);
}

void bnBackward(BnRun& run, const Tensor& x, const Tensor& dy, const float* gamma, float* dx, float* dbeta,
                float* dgamma, int64_t C, int64_t S, bool batchStats) {
  const int64_t batch = x.dim(0);
  run.k.assign(static_cast<size_t>(3 * C), 0.0f);
  bnPartials(1, x.data(), dy.data(), run.mean.data(), batch, C, S, run.partials);
  for (int64_t c = 0; c < C; ++c) {
    double sumDy, sumDyCentered;
    bn::sumPartials(run.partials.data(), c, sumDy, sumDyCentered);
    bn::finishGradients(sumDy, sumDyCentered, gamma[c], run.invStd[c], batch * S, batchStats, dbeta + c, dgamma + c,
                        run.k.data() + 3 * c);
  }
  forEachElement(x.size(), bn::InputGradient{C, S}, x.data(), dy.data(), run.mean.data(), run.k.data(), dx);
}

// ---- Pooling: the axis as pooling_kernel.cu's axisOf makes it.
pool::Axis axisOf(const ops::PoolingAxis& a) {
  return {static_cast<int>(a.in), static_cast<int>(a.out), static_cast<int>(a.kernel), static_cast<int>(a.stride),
          static_cast<int>(a.pad)};
}

struct PoolCase {
  const char* name;
  Shape input;  // (C, H, W)
  int kh, kw, sh, sw, ph, pw;
  bool ignoreBorder;
};

const PoolCase kPoolCases[] = {
    {"2x2 stride 2 (the CPU's tiled path)", {7, 6, 4}, 2, 2, 2, 2, 0, 0, true},
    {"2x2 stride 2, odd 5x3", {7, 5, 3}, 2, 2, 2, 2, 0, 0, true},
    {"3x3 stride 2 pad 1, 5x3", {7, 5, 3}, 3, 3, 2, 2, 1, 1, true},
    {"3x3 stride 1 (overlapping)", {7, 5, 6}, 3, 3, 1, 1, 0, 0, true},
    {"3x2 stride (1,2) pad (2,1)", {7, 6, 7}, 3, 2, 1, 2, 2, 1, true},
    {"2x2 stride 2, ignore_border false, 5x3", {7, 5, 3}, 2, 2, 2, 2, 0, 0, false},
    {"3x3 stride 2 pad 1, ignore_border false", {7, 6, 8}, 3, 3, 2, 2, 1, 1, false},
    {"kernel larger than input, ignore_border false", {7, 3, 2}, 4, 4, 4, 4, 0, 0, false},
};

Json poolParams(const PoolCase& c) {
  return {{"kernel", {c.kh, c.kw}}, {"stride", {c.sh, c.sw}}, {"pad", {c.ph, c.pw}}, {"ignore_border", c.ignoreBorder}};
}

// A loss op's CPU kernel and its body-side sums for one formula.
template <typename Formula>
void checkElementwiseLoss(DeviceContext& device, const std::string& op, const Json& params, const Formula& formula,
                          float xLo, float xHi, float tLo, float tHi, Rng& rng) {
  const Shape sample{7, 5, 3};
  const int64_t batch = 3;
  Layer layer = cpuLayer(device, op, params, {sample});
  Tensor x = randomTensor(withBatch(batch, sample), rng, xLo, xHi);
  Tensor t = randomTensor(withBatch(batch, sample), rng, tLo, tHi);
  x[1 * numel(sample) + 17] = std::numeric_limits<float>::quiet_NaN();  // sample 1's loss must become NaN
  Tensor w = randomTensor({batch, 1}, rng, 0.1f, 2.0f);                 // each sample's weight
  Tensor y({batch, 1}), dx(x.shape());
  const std::vector<const Tensor*> inputs{&x};
  const std::vector<Tensor*> inputGrads{&dx};
  KernelCall call{.device = device, .inputs = inputs, .params = {}, .output = y, .target = &t, .training = true};
  layer.kernel->forward(call);
  call.outputGrad = &w;
  call.inputGrads = inputGrads;
  layer.kernel->backward(call);

  const int64_t perSample = numel(sample);
  Tensor bodyY({batch, 1}), bodyDx(x.shape());
  for (int64_t n = 0; n < batch; ++n) {
    double sum = 0.0;  // elementwiseLossForward's block sum, here in element order
    for (int64_t i = n * perSample; i < (n + 1) * perSample; ++i) sum += cuda::lossTerm(formula, x[i], t[i]);
    bodyY[n] = cuda::sampleLoss(sum);
  }
  forEachElement(x.size(), body::ElementwiseLossGradient<Formula>{formula, perSample}, x.data(), t.data(), w.data(),
                 bodyDx.data());
  QVERIFY2(std::isnan(y[1]), (op + ": the CPU op's loss of a NaN prediction").c_str());
  CHECK_TENSOR(bodyY, y, kRounding, op + " forward");
  CHECK_TENSOR(bodyDx, dx, kExact, op + " backward");
}

}  // namespace

class TestCudaKernelBodies : public QObject {
  Q_OBJECT

 private:
  CpuDeviceContext m_device{"cpu:0", 2};
  Rng m_rng{20240613};

 private slots:
  void initTestCase() { m_device.bindToCurrentThread(); }

  // launchAdd's body (Add2 forward); Add2's backward is a copy on both backends.
  void add2() {
    const Shape sample{7, 5, 3};
    Layer layer = cpuLayer(m_device, "Add2", nullptr, {sample, sample});
    Tensor a = randomTensor(withBatch(3, sample), m_rng), b = randomTensor(withBatch(3, sample), m_rng);
    Tensor y(withBatch(3, sample)), got(withBatch(3, sample));
    const std::vector<const Tensor*> inputs{&a, &b};
    KernelCall call{.device = m_device, .inputs = inputs, .params = {}, .output = y, .training = true};
    layer.kernel->forward(call);
    forEachElement(y.size(), body::Add{}, got.data(), a.data(), b.data());
    CHECK_TENSOR(got, y, kExact, "Add2 forward");
  }

  // Note [Tree order over NCCL]: the GPU's tree sum adds the ranks' buffers exactly as Note
  // [Reduction tree]'s treeSum (the in-process communicator's and the chunk tree's order), bit for
  // bit, for every rank count it handles; values of mixed magnitude make another order show.
  void treeSumIsTheReductionTree() {
    const int64_t count = 257;
    for (int ranks = 1; ranks <= body::TreeSum::kMaxRanks; ++ranks) {
      std::vector<std::vector<float>> parts(static_cast<size_t>(ranks));
      std::vector<float> gathered;
      for (auto& p : parts) {
        for (int64_t i = 0; i < count; ++i) p.push_back(m_rng.uniform(-1.0f, 1.0f) * std::pow(10.0f, m_rng.uniform(-4.0f, 4.0f)));
        gathered.insert(gathered.end(), p.begin(), p.end());
      }
      std::vector<float> expected;
      treeSum(parts, 0, ranks, expected);
      std::vector<float> got(static_cast<size_t>(count));
      forEachElement(count, body::TreeSum{}, got.data(), gathered.data(), ranks, count);
      for (int64_t i = 0; i < count; ++i)
        QVERIFY2(got[static_cast<size_t>(i)] == expected[static_cast<size_t>(i)],
                 qPrintable(QString("%1 ranks, element %2: %3 vs %4").arg(ranks).arg(i).arg(got[static_cast<size_t>(i)]).arg(expected[static_cast<size_t>(i)])));
    }
  }

  // Affine's bias kernel: the CPU Affine without bias, plus the body's bias, against the CPU
  // Affine with bias (same W).
  void affineAddBias() {
    const Shape sample{7, 5, 3};
    const Json noBias{{"n_outmaps", {11}}, {"base_axis", 2}, {"with_bias", false}};
    Json withBias = noBias;
    withBias["with_bias"] = true;
    Layer plain = cpuLayer(m_device, "Affine", noBias, {sample});
    Layer biased = cpuLayer(m_device, "Affine", withBias, {sample});
    QVERIFY(plain.output == (Shape{7, 11}));
    const int64_t batch = 3, rows = batch * 7, outmaps = 11;
    Tensor x = randomTensor(withBatch(batch, sample), m_rng);
    Tensor w = randomTensor({15, outmaps}, m_rng), b = randomTensor({outmaps}, m_rng, -2.0f, 2.0f);
    Tensor gemm(withBatch(batch, plain.output)), want(withBatch(batch, plain.output));
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> plainParams{&w}, biasedParams{&w, &b};
    KernelCall c1{.device = m_device, .inputs = inputs, .params = plainParams, .output = gemm, .training = true};
    plain.kernel->forward(c1);
    KernelCall c2{.device = m_device, .inputs = inputs, .params = biasedParams, .output = want, .training = true};
    biased.kernel->forward(c2);
    forEachElement(rows * outmaps, body::AddBias{outmaps}, gemm.data(), b.data());
    CHECK_TENSOR(gemm, want, kRounding, "Affine bias");
  }

  void batchNormalization_data() {
    QTest::addColumn<qlonglong>("batch");
    QTest::addColumn<qlonglong>("channels");
    QTest::addColumn<qlonglong>("height");
    QTest::addColumn<qlonglong>("width");
    QTest::addColumn<bool>("training");
    QTest::addColumn<bool>("batchStat");
    for (const bool training : {true, false}) {
      const char* mode = training ? "training" : "inference";
      QTest::addRow("batch 3, 7 channels, 5x3, %s", mode) << 3LL << 7LL << 5LL << 3LL << training << true;
      QTest::addRow("batch 3, 70000 channels, 2x1, %s", mode) << 3LL << 70000LL << 2LL << 1LL << training << true;
    }
    QTest::addRow("batch 3, 7 channels, 5x3, training, batch_stat false") << 3LL << 7LL << 5LL << 3LL << true << false;
    // One value per channel: the biased variance 0 and unbias 1.
    QTest::addRow("batch 1, 7 channels, 1x1, training") << 1LL << 7LL << 1LL << 1LL << true << true;
    // More values per channel than slices (64): 385 fill 55 slices of 7, the last of them full.
    QTest::addRow("batch 5, 3 channels, 7x11, training") << 5LL << 3LL << 7LL << 11LL << true << true;
    // 128 values: every one of the 64 slices holds 2, so the last slice counts too.
    QTest::addRow("batch 4, 3 channels, 8x4, training") << 4LL << 3LL << 8LL << 4LL << true << true;
  }

  void batchNormalization() {
    QFETCH(qlonglong, batch);
    QFETCH(qlonglong, channels);
    QFETCH(qlonglong, height);
    QFETCH(qlonglong, width);
    QFETCH(bool, training);
    QFETCH(bool, batchStat);
    const int64_t C = channels, S = height * width;
    const Shape sample{C, height, width};
    const float eps = 1e-3f, decay = 0.8f;
    Layer layer = cpuLayer(m_device, "BatchNormalization", {{"eps", eps}, {"decay_rate", decay}, {"batch_stat", batchStat}},
                           {sample});
    // Off-centre, not unit-scaled inputs so the statistics matter; positive running variance.
    Tensor beta = randomTensor({C}, m_rng), gamma = randomTensor({C}, m_rng, 0.5f, 2.0f);
    Tensor cpuMean = randomTensor({C}, m_rng), cpuVar = randomTensor({C}, m_rng, 0.5f, 2.0f);
    Tensor bodyMean = copyOf(cpuMean), bodyVar = copyOf(cpuVar);
    BnRun run;
    // Two passes: the second normalizes with running statistics the first updated.
    for (int pass = 0; pass < 2; ++pass) {
      const std::string what = QTest::currentDataTag() + std::string(", pass ") + std::to_string(pass);
      Tensor x = randomTensor(withBatch(batch, sample), m_rng, 1.0f, 4.0f);
      Tensor dy = randomTensor(withBatch(batch, sample), m_rng);
      Tensor y(x.shape()), dx(x.shape()), dbeta({C}), dgamma({C});
      const std::vector<const Tensor*> inputs{&x};
      const std::vector<Tensor*> params{&beta, &gamma, &cpuMean, &cpuVar};
      const std::vector<Tensor*> inputGrads{&dx};
      const std::vector<Tensor*> paramGrads{&dbeta, &dgamma, nullptr, nullptr};
      KernelCall call{.device = m_device, .inputs = inputs, .params = params, .output = y, .training = training};
      layer.kernel->forward(call);
      call.outputGrad = &dy;
      call.inputGrads = inputGrads;
      call.paramGrads = paramGrads;
      layer.kernel->backward(call);

      const bool batchStats = training && batchStat;
      Tensor bodyY(x.shape()), bodyDx(x.shape()), bodyDbeta({C}), bodyDgamma({C});
      bnForward(run, x, bodyY.data(), beta.data(), gamma.data(), bodyMean.data(), bodyVar.data(), C, S, eps, decay,
                batchStats);
      bnBackward(run, x, dy, gamma.data(), bodyDx.data(), bodyDbeta.data(), bodyDgamma.data(), C, S, batchStats);
      CHECK_TENSOR(bodyY, y, kSumOrder, what + " forward");
      CHECK_TENSOR(bodyMean, cpuMean, kSumOrder, what + " running mean");
      CHECK_TENSOR(bodyVar, cpuVar, kSumOrder, what + " running variance");
      CHECK_TENSOR(bodyDx, dx, kSumOrder, what + " dx");
      CHECK_TENSOR(bodyDbeta, dbeta, kSumOrder, what + " dbeta");
      CHECK_TENSOR(bodyDgamma, dgamma, kSumOrder, what + " dgamma");
    }
  }

  // Note [GPU fused epilogues]: BatchNormalization's and Affine's bodies with the ReLU written in
  // give exactly max(y, 0) of their unfused y, and the CPU layer followed by the CPU ReLU.
  void fusedEpilogues() {
    const int64_t batch = 4, C = 5, S = 6;
    const Shape sample{C, 2, 3};
    // BatchNormalization, training: the body's statistics, then normalize with and without ReLU.
    Layer bnLayer = cpuLayer(m_device, "BatchNormalization", {{"eps", 1e-3}, {"decay_rate", 0.9}}, {sample});
    Layer relu = cpuLayer(m_device, "ReLU", Json::object(), {sample});
    Tensor beta = randomTensor({C}, m_rng), gamma = randomTensor({C}, m_rng, 0.5f, 2.0f);
    Tensor mean = randomTensor({C}, m_rng), var = randomTensor({C}, m_rng, 0.5f, 2.0f);
    Tensor bodyMean = copyOf(mean), bodyVar = copyOf(var);
    Tensor x = randomTensor(withBatch(batch, sample), m_rng, -1.0f, 2.0f);
    Tensor cpuY(x.shape()), cpuRelu(x.shape()), plain(x.shape()), fused(x.shape());
    {
      const std::vector<const Tensor*> inputs{&x};
      const std::vector<Tensor*> params{&beta, &gamma, &mean, &var};
      KernelCall call{.device = m_device, .inputs = inputs, .params = params, .output = cpuY, .training = true};
      bnLayer.kernel->forward(call);
      const std::vector<const Tensor*> reluInputs{&cpuY};
      KernelCall reluCall{.device = m_device, .inputs = reluInputs, .params = {}, .output = cpuRelu, .training = true};
      relu.kernel->forward(reluCall);
    }
    BnRun run;
    bnForward(run, x, plain.data(), beta.data(), gamma.data(), bodyMean.data(), bodyVar.data(), C, S, 1e-3f, 0.9f, true);
    forEachElement(x.size(), bn::Normalize{C, S, true}, x.data(), fused.data(), run.mean.data(), run.invStd.data(),
                   gamma.data(), beta.data());
    int negatives = 0;
    for (int64_t i = 0; i < x.size(); ++i) {
      QCOMPARE(fused[i], plain[i] > 0.0f ? plain[i] : 0.0f);
      negatives += plain[i] < 0.0f;
    }
    QVERIFY(negatives > 0 && negatives < x.size());  // the ReLU had work to do
    CHECK_TENSOR(fused, cpuRelu, kSumOrder, "BatchNormalization + ReLU");

    // Affine with a bias: the bias kernel with the ReLU against the bias kernel alone.
    const int64_t rows = 9, outmaps = 7;
    Tensor y = randomTensor({rows, outmaps}, m_rng), b = randomTensor({outmaps}, m_rng);
    Tensor yFused = copyOf(y);
    forEachElement(rows * outmaps, body::AddBias{outmaps}, y.data(), b.data());
    forEachElement(rows * outmaps, body::AddBias{outmaps, true}, yFused.data(), b.data());
    for (int64_t i = 0; i < y.size(); ++i) QCOMPARE(yFused[i], y[i] > 0.0f ? y[i] : 0.0f);
  }

  void elementwiseLosses() {
    // Predictions past [1e-7, 1 − 1e-7] reach BinaryCrossEntropy's clamp; targets in [0, 1].
    checkElementwiseLoss(m_device, "BinaryCrossEntropy", nullptr, cuda::BinaryCrossEntropyFormula{}, -0.1f, 1.1f,
                         0.0f, 1.0f, m_rng);
    if (QTest::currentTestFailed()) return;
    // delta 0.7 with differences up to 3 reaches both the quadratic and the linear part.
    checkElementwiseLoss(m_device, "HuberLoss", {{"delta", 0.7}}, cuda::HuberFormula{0.7}, -2.0f, 2.0f, -1.0f, 1.0f,
                         m_rng);
    if (QTest::currentTestFailed()) return;
    checkElementwiseLoss(m_device, "SquaredError", nullptr, cuda::SquaredErrorFormula{}, -2.0f, 2.0f, -1.0f, 1.0f,
                         m_rng);
    if (QTest::currentTestFailed()) return;
    checkElementwiseLoss(m_device, "SigmoidCrossEntropy", nullptr, cuda::SigmoidCrossEntropyFormula{}, -6.0f, 6.0f,
                         0.0f, 1.0f, m_rng);
  }

  // The mask from the counter-based stream, with the batch's sample ids and with row indices.
  void dropout() {
    const Shape sample{7, 5, 3};
    const int64_t batch = 3;
    const float p = 0.3f;
    Layer layer = cpuLayer(m_device, "Dropout", {{"p", p}}, {sample});
    const std::vector<int64_t> ids{1000, 7, 123456789012LL};
    for (const bool withIds : {true, false}) {
      const std::string what = withIds ? "Dropout (sample ids)" : "Dropout (row indices)";
      Tensor x = randomTensor(withBatch(batch, sample), m_rng), dy = randomTensor(withBatch(batch, sample), m_rng);
      Tensor y(x.shape()), dx(x.shape());
      const std::vector<const Tensor*> inputs{&x};
      const std::vector<Tensor*> inputGrads{&dx};
      const RandomKey key{.seed = 20240613, .node = 5, .pass = 2, .sampleIds = withIds ? ids.data() : nullptr};
      KernelCall call{.device = m_device, .inputs = inputs, .params = {}, .output = y, .training = true, .random = key};
      layer.kernel->forward(call);
      call.outputGrad = &dy;
      call.inputGrads = inputGrads;
      layer.kernel->backward(call);

      Tensor bodyY(x.shape()), mask(x.shape()), bodyDx(x.shape());
      // As dropout/cuda.cu: the stream seed from the key, scale = 1 / (1 − p) in float.
      const body::DropoutForward draw{cuda::dropoutSeed(key.seed, key.node, key.pass), p, 1.0f / (1.0f - p)};
      forEachElement(x.size(), draw, x.data(), bodyY.data(), mask.data(), numel(sample), key.sampleIds);
      forEachElement(x.size(), body::Multiply{}, dy.data(), mask.data(), bodyDx.data());
      int64_t dropped = 0;
      for (int64_t i = 0; i < mask.size(); ++i) dropped += mask[i] == 0.0f;
      QVERIFY2(dropped > 0 && dropped < mask.size(), what.c_str());
      CHECK_TENSOR(bodyY, y, kExact, what + " forward");
      CHECK_TENSOR(bodyDx, dx, kExact, what + " backward");
    }
  }

  void globalAveragePooling_data() {
    QTest::addColumn<qlonglong>("channels");
    QTest::addColumn<qlonglong>("height");
    QTest::addColumn<qlonglong>("width");
    QTest::addRow("7 channels, 5x3") << 7LL << 5LL << 3LL;
    QTest::addRow("70000 channels, 1x2") << 70000LL << 1LL << 2LL;
  }

  void globalAveragePooling() {
    QFETCH(qlonglong, channels);
    QFETCH(qlonglong, height);
    QFETCH(qlonglong, width);
    const Shape sample{channels, height, width};
    const int64_t batch = 3, planeSize = height * width, planes = batch * channels;
    Layer layer = cpuLayer(m_device, "GlobalAveragePooling", nullptr, {sample});
    Tensor x = randomTensor(withBatch(batch, sample), m_rng), dy = randomTensor(withBatch(batch, layer.output), m_rng);
    Tensor y(withBatch(batch, layer.output)), dx(x.shape());
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> inputGrads{&dx};
    KernelCall call{.device = m_device, .inputs = inputs, .params = {}, .output = y, .training = true};
    layer.kernel->forward(call);
    call.outputGrad = &dy;
    call.inputGrads = inputGrads;
    layer.kernel->backward(call);

    const float scale = 1.0f / static_cast<float>(planeSize);  // as global_average_pooling/cuda.cu
    Tensor bodyY(y.shape()), bodyDx(x.shape());
    for (int64_t p = 0; p < planes; ++p) {
      float sum = 0.0f;  // planeMeans' block sum, here in element order
      for (int64_t i = 0; i < planeSize; ++i) sum += x[p * planeSize + i];
      bodyY[p] = cuda::planeMean(sum, scale);
    }
    forEachElement(x.size(), body::GlobalAverageSpread{planeSize, scale}, dy.data(), bodyDx.data());
    CHECK_TENSOR(bodyY, y, kSumOrder, std::string("GlobalAveragePooling forward, ") + QTest::currentDataTag());
    CHECK_TENSOR(bodyDx, dx, kExact, std::string("GlobalAveragePooling backward, ") + QTest::currentDataTag());
  }

  void leakyRelu() {
    const Shape sample{7, 5, 3};
    const float alpha = 0.3f;
    Layer layer = cpuLayer(m_device, "LeakyReLU", {{"alpha", alpha}}, {sample});
    Tensor x = randomTensor(withBatch(3, sample), m_rng), dy = randomTensor(withBatch(3, sample), m_rng);
    x[0] = 0.0f;  // the boundary: x > 0 is false at 0
    x[1] = -0.0f;
    Tensor y(x.shape()), dx(x.shape());
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> inputGrads{&dx};
    KernelCall call{.device = m_device, .inputs = inputs, .params = {}, .output = y, .training = true};
    layer.kernel->forward(call);
    call.outputGrad = &dy;
    call.inputGrads = inputGrads;
    layer.kernel->backward(call);

    Tensor bodyY(x.shape()), bodyDx(x.shape());
    forEachElement(x.size(), body::LeakyReluForward{alpha}, x.data(), bodyY.data());
    forEachElement(x.size(), body::LeakyReluBackward{alpha}, x.data(), dy.data(), bodyDx.data());
    CHECK_TENSOR(bodyY, y, kExact, "LeakyReLU forward");
    CHECK_TENSOR(bodyDx, dx, kExact, "LeakyReLU backward");
  }

  void softmaxCrossEntropy_data() {
    QTest::addColumn<qlonglong>("classes");
    QTest::addRow("7 classes") << 7LL;
    QTest::addRow("70000 classes") << 70000LL;
  }

  void softmaxCrossEntropy() {
    QFETCH(qlonglong, classes);
    const int64_t batch = 3;
    Layer layer = cpuLayer(m_device, "SoftmaxCrossEntropy", nullptr, {{classes}});
    // Scores up to ±8 so the maximum matters and small terms are far below it.
    Tensor x = randomTensor({batch, classes}, m_rng, -8.0f, 8.0f);
    Tensor t({batch, 1}), w = randomTensor({batch, 1}, m_rng, 0.1f, 2.0f);
    for (int64_t n = 0; n < batch; ++n) t[n] = static_cast<float>((n * 5 + 2) % classes);
    Tensor y({batch, 1}), dx(x.shape());
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> inputGrads{&dx};
    KernelCall call{.device = m_device, .inputs = inputs, .params = {}, .output = y, .target = &t, .training = true};
    layer.kernel->forward(call);
    call.outputGrad = &w;
    call.inputGrads = inputGrads;
    layer.kernel->backward(call);

    Tensor bodyY({batch, 1}), bodyDx(x.shape());
    for (int64_t n = 0; n < batch; ++n) {
      const float* row = x.data() + n * classes;
      float m = row[0];  // rowLogSumExp's block maximum, here in a loop
      for (int64_t c = 1; c < classes; ++c) m = std::max(m, row[c]);
      double sum = 0.0;
      for (int64_t c = 0; c < classes; ++c) sum += sce::expTerm(row[c], m);
      const double lse = sce::logSumExp(m, sum);
      bodyY[n] = sce::sampleLoss(row, lse, t[n], classes);
      const int64_t target = sce::targetClass(t[n], classes);
      for (int64_t c = 0; c < classes; ++c) bodyDx[n * classes + c] = sce::gradient(row[c], lse, c, target, w[n]);
    }
    CHECK_TENSOR(bodyY, y, kRounding, std::string("SoftmaxCrossEntropy forward, ") + QTest::currentDataTag());
    CHECK_TENSOR(bodyDx, dx, kRounding, std::string("SoftmaxCrossEntropy backward, ") + QTest::currentDataTag());
  }

  // The CPU op refuses a label that is not a class index; the GPU cannot name the row, so its
  // loss and gradient are NaN and the trainer stops on the NaN loss.
  void softmaxCrossEntropyInvalidLabel() {
    for (const float label : {-1.0f, 7.0f, 2.5f, std::numeric_limits<float>::quiet_NaN()}) {
      QVERIFY(!sce::validLabel(label, 7));
      QCOMPARE(sce::targetClass(label, 7), int64_t{-1});
      const float row[7] = {0, 1, 2, 3, 4, 5, 6};
      QVERIFY(std::isnan(sce::sampleLoss(row, 7.0, label, 7)));
      QVERIFY(std::isnan(sce::gradient(1.0f, 7.0, 1, -1, 1.0)));
    }
    QVERIFY(sce::validLabel(6.0f, 7));
    QVERIFY(sce::validLabel(0.0f, 7));
  }

  void pooling_data() {
    QTest::addColumn<int>("caseIndex");
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("includingPad");
    for (int i = 0; i < static_cast<int>(std::size(kPoolCases)); ++i) {
      QTest::addRow("max, %s", kPoolCases[i].name) << i << QString("MaxPooling") << false;
      QTest::addRow("average including pad, %s", kPoolCases[i].name) << i << QString("AveragePooling") << true;
      QTest::addRow("average excluding pad, %s", kPoolCases[i].name) << i << QString("AveragePooling") << false;
    }
  }

  void pooling() {
    QFETCH(int, caseIndex);
    QFETCH(QString, type);
    QFETCH(bool, includingPad);
    const PoolCase& pc = kPoolCases[caseIndex];
    const bool isMax = type == "MaxPooling";
    const std::string op = type.toStdString();
    Json params = poolParams(pc);
    if (!isMax) params["including_pad"] = includingPad;
    Layer layer = cpuLayer(m_device, op, params, {pc.input});
    const Json validated = validateParams(OpRegistry::builtin().get(op), params, "test.params");
    const ops::PoolingGeometry g = ops::poolingGeometry(op.c_str(), pc.input, OpParams(validated));
    const pool::Axis h = axisOf(g.height), w = axisOf(g.width);
    const int64_t batch = 3;
    Tensor x = randomTensor(withBatch(batch, pc.input), m_rng);
    if (isMax) {
      x[0] = std::numeric_limits<float>::quiet_NaN();  // first of window 0: the CPU keeps NaN
      x[x.size() - 1] = x[x.size() - 2];               // a tie: the first in row-major order wins
    }
    Tensor dy = randomTensor(withBatch(batch, layer.output), m_rng);
    Tensor y(withBatch(batch, layer.output)), dx(x.shape());
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> inputGrads{&dx};
    KernelCall call{.device = m_device, .inputs = inputs, .params = {}, .output = y, .training = true};
    layer.kernel->forward(call);
    call.outputGrad = &dy;
    call.inputGrads = inputGrads;
    layer.kernel->backward(call);

    Tensor bodyY(y.shape()), bodyDx(x.shape());
    if (isMax) {
      std::vector<int> argmax(static_cast<size_t>(y.size()));
      forEachElement(y.size(), pool::MaxForward{h, w}, x.data(), bodyY.data(), argmax.data());
      forEachElement(x.size(), pool::MaxBackward{h, w}, dy.data(), static_cast<const int*>(argmax.data()), bodyDx.data());
    } else {
      forEachElement(y.size(), pool::AverageForward{h, w, includingPad}, x.data(), bodyY.data());
      forEachElement(x.size(), pool::AverageBackward{h, w, includingPad}, dy.data(), bodyDx.data());
    }
    CHECK_TENSOR(bodyY, y, kExact, std::string(QTest::currentDataTag()) + " forward");
    CHECK_TENSOR(bodyDx, dx, kExact, std::string(QTest::currentDataTag()) + " backward");
  }
};

QTEST_GUILESS_MAIN(TestCudaKernelBodies)
#include "tst_cuda_kernel_bodies.moc"
