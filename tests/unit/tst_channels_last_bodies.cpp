// Note [Channels last] through the GPU kernels' host-device bodies, run here on the CPU: each body
// given NHWC memory computes exactly (bit for bit) what it computes given the same values in NCHW
// order — which tst_cuda_kernel_bodies holds against the CPU ops — for pooling (maximum with its
// argmax, average, forward and backward), BatchNormalization (the order of its channel sums,
// normalize, input gradient), GlobalAveragePooling's backward and the convolution's bias
// epilogue; in float32 and in bfloat16 storage. And the layout conversions themselves:
// layoutSource, DeviceContext::convert and accumulateTensor between layouts. And the bodies only
// 16-bit activations use: ReLU's and ReLU6's clamps (cuDNN's activations run on float32).
// netsmith-test-labels: asan
#include <QtTest>

#include <algorithm>
#include <vector>

#include "engine/backend/cuda/elementwise_bodies.h"
#include "engine/backend/cuda/pooling_math.h"
#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/channels_last.h"
#include "engine/core/device_context.h"
#include "engine/core/rng.h"
#include "engine/ops/batch_normalization/cuda_math.h"
#include "engine/ops/global_average_pooling/cuda_math.h"

using namespace netsmith;
using namespace netsmith::cuda;

namespace {

template <typename Body, typename... Args>
void forEach(int64_t n, const Body& body, Args... args) {
  for (int64_t i = 0; i < n; ++i) body(i, args...);
}

template <typename T>
std::vector<T> toLast(const std::vector<T>& first, int64_t C, int64_t S) {
  std::vector<T> out(first.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = first[static_cast<size_t>(layoutSource(int64_t(i), C, S, true, false))];
  return out;
}

// A (N, C, H, W) block of values in NCHW order, and the same values in NHWC order.
template <typename Bits>
struct Pair {
  int64_t N, C, H, W;
  std::vector<Bits> first, last;
  int64_t S() const { return H * W; }
  int64_t size() const { return N * C * H * W; }
};

template <typename F>
Pair<typename F::Bits> randomPair(int64_t N, int64_t C, int64_t H, int64_t W, uint64_t seed, bool ties = false) {
  Pair<typename F::Bits> p{N, C, H, W, {}, {}};
  Rng rng(seed);
  for (int64_t i = 0; i < p.size(); ++i)
    p.first.push_back(F::store(ties ? static_cast<float>(rng.next() % 4) : rng.uniform(-2.0f, 2.0f)));
  p.last = toLast(p.first, C, p.S());
  return p;
}


}  // namespace

class ChannelsLastBodiesTest : public QObject {
  Q_OBJECT

  template <typename F>
  void poolingIn() {
    using Bits = typename F::Bits;
    for (const bool max : {true, false}) {
      // 7×6 input, 3×3 windows, stride 2, pad 1 (windows cut by the edges); integer values: ties.
      const pool::Axis h{7, 4, 3, 2, 1}, w{6, 3, 3, 2, 1};
      const int64_t N = 2, C = 5;
      const auto x = randomPair<F>(N, C, h.in, w.in, 3, max);
      const auto dy = randomPair<F>(N, C, h.out, w.out, 4);
      const int64_t outs = N * C * h.out * w.out, ins = x.size();
      std::vector<Bits> yFirst(outs), yLast(outs), dxFirst(ins), dxLast(ins);
      std::vector<int> argFirst(outs), argLast(outs);
      const pool::Planes first{}, last{C, true};
      if (max) {
        forEach(outs, pool::MaxForwardOf<F>{h, w, first}, x.first.data(), yFirst.data(), argFirst.data());
        forEach(outs, pool::MaxForwardOf<F>{h, w, last}, x.last.data(), yLast.data(), argLast.data());
        forEach(ins, pool::MaxBackwardOf<F>{h, w, first}, dy.first.data(), static_cast<const int*>(argFirst.data()),
                dxFirst.data());
        forEach(ins, pool::MaxBackwardOf<F>{h, w, last}, dy.last.data(), static_cast<const int*>(argLast.data()),
                dxLast.data());
        QVERIFY(toLast(argFirst, C, h.out * w.out) == argLast);
      } else {
        forEach(outs, pool::AverageForwardOf<F>{h, w, true, first}, x.first.data(), yFirst.data());
        forEach(outs, pool::AverageForwardOf<F>{h, w, true, last}, x.last.data(), yLast.data());
        forEach(ins, pool::AverageBackwardOf<F>{h, w, true, first}, dy.first.data(), dxFirst.data());
        forEach(ins, pool::AverageBackwardOf<F>{h, w, true, last}, dy.last.data(), dxLast.data());
      }
      QVERIFY(toLast(yFirst, C, h.out * w.out) == yLast);
      QVERIFY(toLast(dxFirst, C, x.S()) == dxLast);
    }
  }

  template <typename F>
  void batchNormalizationIn() {
    using Bits = typename F::Bits;
    const int64_t N = 3, C = 4, H = 5, W = 2, S = H * W;
    const auto x = randomPair<F>(N, C, H, W, 5), dy = randomPair<F>(N, C, H, W, 6);
    // The channel sums visit the same values in the same order in both layouts.
    for (int64_t c = 0; c < C; ++c)
      for (int64_t j = 0; j < N * S; ++j)
        QCOMPARE(x.last[static_cast<size_t>(bn::valueIndex(j, c, C, S, true))],
                 x.first[static_cast<size_t>(bn::valueIndex(j, c, C, S, false))]);
    std::vector<float> mean(C), invStd(C), gamma(C), beta(C), k(3 * C);
    Rng rng(7);
    for (int64_t c = 0; c < C; ++c) {
      mean[c] = rng.uniform(-0.5f, 0.5f), invStd[c] = rng.uniform(0.5f, 2.0f);
      gamma[c] = rng.uniform(0.5f, 1.5f), beta[c] = rng.uniform(-1.0f, 1.0f);
      for (int j = 0; j < 3; ++j) k[3 * c + j] = rng.uniform(-1.0f, 1.0f);
    }
    const int64_t n = x.size();
    std::vector<Bits> yFirst(n), yLast(n), dxFirst(n), dxLast(n);
    forEach(n, bn::NormalizeOf<F>{C, S, true, false}, x.first.data(), yFirst.data(), mean.data(), invStd.data(),
            gamma.data(), beta.data());
    forEach(n, bn::NormalizeOf<F>{C, S, true, true}, x.last.data(), yLast.data(), mean.data(), invStd.data(),
            gamma.data(), beta.data());
    forEach(n, bn::InputGradientOf<F>{C, S, false}, x.first.data(), dy.first.data(), mean.data(), k.data(), dxFirst.data());
    forEach(n, bn::InputGradientOf<F>{C, S, true}, x.last.data(), dy.last.data(), mean.data(), k.data(), dxLast.data());
    QVERIFY(toLast(yFirst, C, S) == yLast);
    QVERIFY(toLast(dxFirst, C, S) == dxLast);
  }

  template <typename F>
  void spreadsAndBiasesIn() {
    using Bits = typename F::Bits;
    const int64_t N = 2, C = 3, H = 4, W = 3, S = H * W;
    // GlobalAveragePooling's backward: dy (N, C, 1, 1) is the same memory in either layout.
    std::vector<Bits> dy;
    for (int64_t i = 0; i < N * C; ++i) dy.push_back(F::store(0.25f * static_cast<float>(i) - 0.5f));
    std::vector<Bits> dxFirst(N * C * S), dxLast(N * C * S);
    forEach(N * C * S, [](int64_t i, const Bits* d, Bits* dx) {
      body::GlobalAverageSpread{12, 1.0f / 12}.template spread<F>(i, d, dx);
    }, dy.data(), dxFirst.data());
    forEach(N * C * S, [C](int64_t i, const Bits* d, Bits* dx) {
      body::GlobalAverageSpread{12, 1.0f / 12, C, true}.template spread<F>(i, d, dx);
    }, dy.data(), dxLast.data());
    QVERIFY(toLast(dxFirst, C, S) == dxLast);
    // The convolution's bias and fused ReLU.
    auto y = randomPair<F>(N, C, H, W, 9);
    const std::vector<float> b = {0.5f, -1.0f, 0.25f};
    forEach(y.size(), body::ChannelBias<F>{C, S, true, false}, y.first.data(), b.data());
    forEach(y.size(), body::ChannelBias<F>{C, S, true, true}, y.last.data(), b.data());
    QVERIFY(toLast(y.first, C, S) == y.last);
  }

 private slots:
  void layoutSourceIsAPermutation() {
    const int64_t N = 2, C = 3, S = 5;
    std::vector<int> seen(N * C * S, 0);
    for (int64_t i = 0; i < N * C * S; ++i) {
      const int64_t j = layoutSource(i, C, S, true, false);
      ++seen[static_cast<size_t>(j)];
      QCOMPARE(layoutSource(j, C, S, false, true), i);  // and back
    }
    for (int v : seen) QCOMPARE(v, 1);
    // (n=1, c=2, s=3): NCHW position (1·3 + 2)·5 + 3 = 28, NHWC position (1·5 + 3)·3 + 2 = 26.
    QCOMPARE(layoutSource(26, C, S, true, false), int64_t{28});
    QCOMPARE(channelAt(26, C, S, true), int64_t{2});
    QCOMPARE(channelAt(28, C, S, false), int64_t{2});
  }

  void deviceContextConvertsBetweenLayouts() {
    CpuDeviceContext device("cpu:0", 1, Precision::Float);  // DeviceContext's host conversions
    Tensor first(Shape{2, 3, 2, 2});
    for (int64_t i = 0; i < first.size(); ++i) first[i] = static_cast<float>(i);
    Tensor last(nullptr, Storage::BFloat16, Layout::ChannelsLast);
    last.resize(first.shape());
    device.convert(last, first);
    for (int64_t i = 0; i < last.size(); ++i)
      QCOMPARE(bfloat16ToFloat(last.bits16()[i]), static_cast<float>(layoutSource(i, 3, 4, true, false)));
    Tensor back(Shape{2, 3, 2, 2});
    device.convert(back, last);
    for (int64_t i = 0; i < back.size(); ++i) QCOMPARE(back[i], first[i]);
    device.accumulateTensor(back, last);  // back (NCHW) += last (NHWC): every value doubles
    for (int64_t i = 0; i < back.size(); ++i) QCOMPARE(back[i], 2 * first[i]);
    Tensor flat(nullptr, Storage::Float32, Layout::ChannelsLast);
    flat.resize({24});
    QVERIFY_THROWS_EXCEPTION(Error, device.convert(flat, first));  // channels last needs 4 axes
  }

  void pooling() {
    poolingIn<Float32Format>();
    poolingIn<BFloat16Format>();
  }
  void batchNormalization() {
    batchNormalizationIn<Float32Format>();
    batchNormalizationIn<BFloat16Format>();
  }
  // body::ClampForward/ClampBackward against the CPU ReLU's and ReLU6's rules, in bfloat16.
  void clampBodiesAreReluAndRelu6() {
    using F = BFloat16Format;
    const std::vector<float> x = {-3.0f, -0.0f, 0.0f, 0.5f, 5.5f, 6.0f, 7.25f};
    std::vector<uint16_t> xb, dy, y(x.size()), dx(x.size());
    for (float v : x) xb.push_back(F::store(v)), dy.push_back(F::store(1.5f));
    for (const float ceiling : {0.0f, 6.0f}) {
      forEach(int64_t(x.size()), body::ClampForward<F>{ceiling}, static_cast<const uint16_t*>(xb.data()), y.data());
      // ReLU's backward reads its output, ReLU6's its input.
      const std::vector<uint16_t>& v = ceiling > 0 ? xb : y;
      forEach(int64_t(x.size()), body::ClampBackward<F>{ceiling}, static_cast<const uint16_t*>(v.data()),
              static_cast<const uint16_t*>(dy.data()), dx.data());
      for (size_t i = 0; i < x.size(); ++i) {
        const float want = ceiling > 0 ? std::min(std::max(x[i], 0.0f), ceiling) : std::max(x[i], 0.0f);
        QCOMPARE(F::load(y[i]), want);
        const bool passes = x[i] > 0 && (ceiling == 0 || x[i] < ceiling);
        QCOMPARE(F::load(dx[i]), passes ? 1.5f : 0.0f);
      }
    }
  }

  void spreadsAndBiases() {
    spreadsAndBiasesIn<Float32Format>();
    spreadsAndBiasesIn<Float16Format>();
  }
};

QTEST_GUILESS_MAIN(ChannelsLastBodiesTest)
#include "tst_channels_last_bodies.moc"
