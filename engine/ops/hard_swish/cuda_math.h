// HardSwish's per-element bodies (host-device: hard_swish/cuda.cu runs them on the GPU,
// tst_cuda_kernel_bodies on the CPU against the CPU op, oneDNN's eltwise_hardswish).
#pragma once

#include <math.h>

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

// MobileNetV3's hard swish: y = x · min(max(x + 3, 0), 6) / 6.
struct HardSwishForward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const {
    const float v = x[i];
    y[i] = v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
  }
};

// dy/dx = 0 for x ≤ −3, 1 for x ≥ 3, (2x + 3) / 6 in between (oneDNN's rule at the corners).
struct HardSwishBackward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    const float v = x[i];
    dx[i] = v <= -3.0f ? 0.0f : v >= 3.0f ? dy[i] : dy[i] * (2.0f * v + 3.0f) / 6.0f;
  }
};

}  // namespace netsmith::cuda::body
