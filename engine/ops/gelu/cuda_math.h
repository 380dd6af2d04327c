// GELU's per-element bodies (host-device: the CUDA kernel runs them on the GPU,
// tst_cuda_kernel_bodies on the CPU against the CPU op, oneDNN's eltwise_gelu_tanh / _erf).
#pragma once

#include <math.h>

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

// nnabla's GELU (approximate "tanh"): y = x/2 · (1 + tanh(√(2/π) · (x + 0.044715·x³))).
struct GeluTanhForward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const {
    const float v = x[i];
    const float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
    y[i] = 0.5f * v * (1.0f + t);
  }
};

// dy/dx = (1 + t)/2 + x/2 · (1 − t²) · √(2/π) · (1 + 3·0.044715·x²).
struct GeluTanhBackward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    const float v = x[i];
    const float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
    const float du = 0.7978845608f * (1.0f + 0.134145f * v * v);
    dx[i] = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * du);
  }
};

// The exact GELU (approximate "none"): y = x · Φ(x) = x/2 · (1 + erf(x / √2)).
struct GeluErfForward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.7071067812f));
  }
};

// dy/dx = Φ(x) + x · φ(x), φ the standard normal density.
struct GeluErfBackward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    const float v = x[i];
    const float cdf = 0.5f * (1.0f + erff(v * 0.7071067812f));
    const float pdf = 0.3989422804f * expf(-0.5f * v * v);
    dx[i] = dy[i] * (cdf + v * pdf);
  }
};

}  // namespace netsmith::cuda::body
