// Mish's per-element bodies (host-device: mish/cuda.cu runs them on the GPU, tst_cuda_kernel_bodies
// on the CPU against the CPU op, oneDNN's eltwise_mish).
#pragma once

#include <math.h>

#include <cstdint>

#include "engine/core/host_device.h"
#include "engine/ops/softplus/cuda_math.h"

namespace netsmith::cuda::body {

// y = x · tanh(softplus(x)).
struct MishForward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const { y[i] = x[i] * tanhf(softplus(x[i])); }
};

// dy/dx = tanh(sp) + x · (1 − tanh²(sp)) · sigmoid(x), sp = softplus(x) (whose derivative is
// sigmoid(x)).
struct MishBackward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    const float v = x[i];
    const float t = tanhf(softplus(v));
    const float s = 1.0f / (1.0f + expf(-v));
    dx[i] = dy[i] * (t + v * (1.0f - t * t) * s);
  }
};

}  // namespace netsmith::cuda::body
