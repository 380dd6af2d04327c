// SELU's per-element bodies, run by both backends (selu/schema.cpp's CPU kernel and selu/cuda.cu):
// oneDNN 2.6 and cuDNN have no SELU, and cuDNN's ELU backward reads its own output, which a
// scaled ELU does not give. tst_cuda_kernel_bodies checks them against the closed form.
#pragma once

#include <math.h>

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

// y = scale · x for x > 0, scale · alpha · (exp(x) − 1) otherwise.
struct SeluForward {
  float scale, alpha;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const {
    const float v = x[i];
    y[i] = v > 0.0f ? scale * v : scale * alpha * expm1f(v);
  }
};

// dy/dx = scale for x > 0, scale · alpha · exp(x) otherwise.
struct SeluBackward {
  float scale, alpha;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    const float v = x[i];
    dx[i] = v > 0.0f ? scale * dy[i] : scale * alpha * expf(v) * dy[i];
  }
};

}  // namespace netsmith::cuda::body
