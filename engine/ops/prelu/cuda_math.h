// PReLU's per-element bodies and slope-gradient term, run by both backends (prelu/cpu.cpp and
// prelu/cuda.cu); tst_cuda_kernel_bodies checks them against the closed form. Element i of the
// (N, ...) tensor uses slope[(i / inner) % channels] (prelu_shape.h).
#pragma once

#include <cstdint>

#include "engine/host_device/deterministic_reduction.h"
#include "engine/core/host_device.h"

namespace netsmith::cuda {

NS_HOST_DEVICE inline int64_t preluChannel(int64_t i, int64_t channels, int64_t inner) {
  return (i / inner) % channels;
}

// One element's share of d(loss)/d(slope): x · dy where x ≤ 0 (where the slope multiplies x).
// In double: the gradient of a shared slope sums a whole batch.
NS_HOST_DEVICE inline double preluSlopeTerm(float x, float dy) {
  return x > 0.0f ? 0.0 : static_cast<double>(x) * static_cast<double>(dy);
}

// The slope gradient as a reduction (Note [Deterministic GPU reductions]): output c (a slope),
// term k in [0, rows · inner) = element (k / inner, c, k % inner) of the (rows, channels, inner)
// view. A shared slope (channels 1) reads the whole tensor in order: Rows, split over many blocks.
struct PreluSlopeTerms {
  using Value = double;
  const float *x, *dy;
  int64_t channels, inner;
  NS_HOST_DEVICE int64_t prepare(int64_t c) const { return c * inner; }
  NS_HOST_DEVICE double operator()(int64_t, int64_t base, int64_t k) const {
    const int64_t i = inner == 1 ? k * channels + base : (k / inner) * channels * inner + base + k % inner;
    return preluSlopeTerm(x[i], dy[i]);
  }
};

// Columns when one slope's elements are a channel axis apart (inner 1) and there are several
// slopes; Rows (runs of `inner` contiguous elements) otherwise.
inline ReduceLayout preluSlopeLayout(int64_t channels, int64_t inner) {
  return inner == 1 && channels > 1 ? ReduceLayout::Columns : ReduceLayout::Rows;
}

namespace body {

// y = x for x > 0, slope · x otherwise.
struct PreluForward {
  int64_t channels, inner;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* slope, float* y) const {
    y[i] = x[i] > 0.0f ? x[i] : slope[preluChannel(i, channels, inner)] * x[i];
  }
};

// dx = dy for x > 0, slope · dy otherwise.
struct PreluBackward {
  int64_t channels, inner;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* slope, const float* dy, float* dx) const {
    dx[i] = x[i] > 0.0f ? dy[i] : slope[preluChannel(i, channels, inner)] * dy[i];
  }
};

}  // namespace body
}  // namespace netsmith::cuda
