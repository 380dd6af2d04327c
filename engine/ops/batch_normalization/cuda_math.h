// BatchNormalization's GPU steps (cuda.cu), host-device so tst_cuda_kernel_bodies runs them on the
// CPU against batch_normalization/cpu.cpp. The kernels are reductions over a channel's batch·S
// values: pass 1 gives each (channel, slice) block a partial (a, b) summed in double from the
// terms below; pass 2 (one thread per channel) adds a channel's partials in slice order and
// finishes. The element-wise steps (normalize, input gradient) take the finished values.
//
// Values of channel c of sample n are x[(n·C + c)·S + i]; partials are (C, kSlices, 2) doubles.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/core/channels_last.h"
#include "engine/core/half_floats.h"
#include "engine/core/host_device.h"

namespace netsmith::cuda::bn {

constexpr int kSlices = 64;  // blocks per channel in pass 1

// Slice s's share [begin, end) of a channel's `count` values (empty when s is past the end).
struct Range {
  int64_t begin, end;
};
NS_HOST_DEVICE inline Range sliceOf(int64_t count, int slice) {
  const int64_t len = (count + kSlices - 1) / kSlices;
  const int64_t begin = slice * len;
  return {begin, count < begin + len ? count : begin + len};
}

// Where the j-th value of channel c (j over batch·S, in the same order in either layout, so the
// sums are the same) is; last: channels last (Note [Channels last]).
NS_HOST_DEVICE inline int64_t valueIndex(int64_t j, int64_t c, int64_t C, int64_t S, bool last = false) {
  if (last) return j * C + c;
  const int64_t n = j / S, i = j % S;
  return (n * C + c) * S + i;
}

// The channel of element i of (batch, C, S).
NS_HOST_DEVICE inline int64_t channelOf(int64_t i, int64_t C, int64_t S, bool last = false) {
  return channelAt(i, C, S, last);
}

// Statistics term: a += x − shift, b += (x − shift)², shift = the channel's first value (sample
// 0's), which keeps E[d²] − E[d]² accurate when the mean is large against the spread.
NS_HOST_DEVICE inline void addStatisticsTerm(float x, float shift, double& a, double& b) {
  const float d = x - shift;
  a += d;
  b += static_cast<double>(d) * d;
}

// Gradient term: a += dy, b += dy·(x − mean).
NS_HOST_DEVICE inline void addGradientTerm(float x, float dy, float mean, double& a, double& b) {
  const float d = x - mean;
  a += dy;
  b += static_cast<double>(dy) * d;
}

// Pass 2's sum of channel c's partials, in slice order (deterministic).
NS_HOST_DEVICE inline void sumPartials(const double* partials, int64_t c, double& a, double& b) {
  a = 0.0;
  b = 0.0;
  for (int s = 0; s < kSlices; ++s) {
    a += partials[(c * kSlices + s) * 2];
    b += partials[(c * kSlices + s) * 2 + 1];
  }
}

// Pass 2 of the statistics for one channel: mean, 1/std, and the running statistics updated with
// the unbiased variance (unbias = count / (count − 1), or 1 for a single value).
NS_HOST_DEVICE inline void finishStatistics(double sum, double sumSquares, float shift, int64_t count, float eps,
                                            float decay, double unbias, float& mean, float& invStd,
                                            float& runningMean, float& runningVar) {
  const double meanShifted = sum / static_cast<double>(count);
  const double var = fmax(sumSquares / static_cast<double>(count) - meanShifted * meanShifted, 0.0);
  mean = static_cast<float>(shift + meanShifted);
  invStd = static_cast<float>(1.0 / sqrt(var + eps));
  runningMean = decay * runningMean + (1.0f - decay) * mean;
  runningVar = decay * runningVar + (1.0f - decay) * static_cast<float>(var * unbias);
}

// Inference (or batch_stat false): normalize by the running statistics.
NS_HOST_DEVICE inline void runningStatistics(float runningMean, float runningVar, float eps, float& mean,
                                             float& invStd) {
  mean = runningMean;
  invStd = 1.0f / sqrtf(runningVar + eps);
}

// y = (x − mean)·(gamma·invStd) + beta; (x − mean) first, as the CPU kernel.
NS_HOST_DEVICE inline float normalize(float x, float mean, float invStd, float gamma, float beta) {
  return (x - mean) * (gamma * invStd) + beta;
}

// Pass 2 of the gradients for one channel: dbeta, dgamma (each when not null) and the dx
// coefficients k[0..2], dx = k0·dy + k1·(x − mean) + k2. With batch statistics dx is
// gamma·invStd·(dy − mean(dy) − x̂·mean(dy·x̂)); otherwise the statistics are constants.
NS_HOST_DEVICE inline void finishGradients(double sumDy, double sumDyCentered, float gamma, float invStd, int64_t count,
                                           bool batchStats, float* dbeta, float* dgamma, float* k) {
  if (dbeta) *dbeta = static_cast<float>(sumDy);
  if (dgamma) *dgamma = static_cast<float>(sumDyCentered * invStd);
  const float k1 = gamma * invStd;
  float k2 = 0.0f, k3 = 0.0f;
  if (batchStats) {
    const double is = invStd;
    k2 = static_cast<float>(-static_cast<double>(gamma) * is * is * is * sumDyCentered / static_cast<double>(count));
    k3 = static_cast<float>(-static_cast<double>(k1) * sumDy / static_cast<double>(count));
  }
  k[0] = k1;
  k[1] = k2;
  k[2] = k3;
}

NS_HOST_DEVICE inline float inputGradient(float x, float dy, float mean, const float* k) {
  return k[0] * dy + k[1] * (x - mean) + k[2];
}

// Element i of (batch, C, S): y = normalize(x) with its channel's statistics and parameters.
// relu: the ReLU that reads only this layer, written here (Note [GPU fused epilogues]).
// F: the activations' format (Note [16-bit activations]); statistics and parameters are float32.
template <typename F>
struct NormalizeOf {
  int64_t C, S;
  bool relu = false;
  bool last = false;  // channels last (Note [Channels last])
  NS_HOST_DEVICE void operator()(int64_t i, const typename F::Bits* x, typename F::Bits* y, const float* mean,
                                 const float* invStd, const float* gamma, const float* beta) const {
    const int64_t c = channelOf(i, C, S, last);
    const float v = normalize(F::load(x[i]), mean[c], invStd[c], gamma[c], beta[c]);
    y[i] = F::store(relu ? (v > 0.0f ? v : 0.0f) : v);
  }
};
using Normalize = NormalizeOf<Float32Format>;

// Element i of (batch, C, S): dx from its channel's coefficients k (C, 3).
template <typename F>
struct InputGradientOf {
  int64_t C, S;
  bool last = false;
  NS_HOST_DEVICE void operator()(int64_t i, const typename F::Bits* x, const typename F::Bits* dy, const float* mean,
                                 const float* k, typename F::Bits* dx) const {
    const int64_t c = channelOf(i, C, S, last);
    dx[i] = F::store(inputGradient(F::load(x[i]), F::load(dy[i]), mean[c], k + c * 3));
  }
};
using InputGradient = InputGradientOf<Float32Format>;

}  // namespace netsmith::cuda::bn
