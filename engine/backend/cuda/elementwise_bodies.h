// The per-element bodies of the backend's small kernels (cuda_elementwise.cu), shared by the GPU
// kernels and the simulator's host loops. body(i, args...) does element i.
#pragma once

#include <cstdint>

#include "engine/host_device/host_device.h"

namespace netsmith::cuda::body {

struct Fill {
  NS_HOST_DEVICE void operator()(int64_t i, float* dst, float value) const { dst[i] = value; }
};
struct Accumulate {
  NS_HOST_DEVICE void operator()(int64_t i, float* acc, const float* x) const { acc[i] += x[i]; }
};
struct Scale {
  NS_HOST_DEVICE void operator()(int64_t i, float* dst, const float* src, float s) const { dst[i] = src[i] * s; }
};
struct Add {
  NS_HOST_DEVICE void operator()(int64_t i, float* dst, const float* a, const float* b) const { dst[i] = a[i] + b[i]; }
};
// Note [Tree order over NCCL]: out[i] = parts[r * count + i] over the ranks r, added in Note
// [Reduction tree]'s order. Pairs are added bottom-up with an odd one carried to the next level,
// which is that tree: 3 ranks give (x0 + x1) + x2, 6 give ((x0 + x1) + (x2 + x3)) + (x4 + x5).
struct TreeSum {
  static constexpr int kMaxRanks = 8;
  NS_HOST_DEVICE void operator()(int64_t i, float* out, const float* parts, int ranks, int64_t count) const {
    float v[kMaxRanks];
    for (int r = 0; r < ranks; ++r) v[r] = parts[r * count + i];
    for (int n = ranks; n > 1; n = (n + 1) / 2) {
      for (int j = 0; j < n / 2; ++j) v[j] = v[2 * j] + v[2 * j + 1];
      if (n % 2) v[n / 2] = v[n - 1];
    }
    out[i] = v[0];
  }
};

}  // namespace netsmith::cuda::body
