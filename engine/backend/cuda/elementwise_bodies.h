// The per-element bodies of the backend's small kernels (cuda_elementwise.cu), shared by the GPU
// kernels and the simulator's host loops.
#pragma once

#include <cstdint>

#include "engine/backend/cuda/host_device.h"

namespace netsmith::cuda::body {

NS_HOST_DEVICE inline void fill(float* dst, int64_t i, float value) { dst[i] = value; }
NS_HOST_DEVICE inline void accumulate(float* acc, const float* x, int64_t i) { acc[i] += x[i]; }
NS_HOST_DEVICE inline void scale(float* dst, const float* src, int64_t i, float s) { dst[i] = src[i] * s; }
NS_HOST_DEVICE inline void add(float* dst, const float* a, const float* b, int64_t i) { dst[i] = a[i] + b[i]; }

}  // namespace netsmith::cuda::body
