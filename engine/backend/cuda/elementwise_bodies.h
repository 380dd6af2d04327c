// The per-element bodies of the backend's small kernels (cuda_elementwise.cu), shared by the GPU
// kernels and the simulator's host loops. body(i, args...) does element i.
#pragma once

#include <cstdint>

#include "engine/backend/cuda/host_device.h"

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

}  // namespace netsmith::cuda::body
