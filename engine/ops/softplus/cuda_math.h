// SoftPlus's per-element bodies, run by both backends (softplus/schema.cpp's CPU kernel and
// softplus/cuda.cu): oneDNN 2.6's soft_relu has no beta, cuDNN has no SoftPlus.
// tst_cuda_kernel_bodies checks them against the closed form.
#pragma once

#include <math.h>

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

// y = log(1 + exp(beta·x)) / beta, as max(bx, 0) + log1p(exp(−|bx|)) so that no exp overflows
// (large bx gives bx, large negative bx gives exp(bx) without cancellation).
NS_HOST_DEVICE inline float softplus(float bx) { return fmaxf(bx, 0.0f) + log1pf(expf(-fabsf(bx))); }

struct SoftPlusForward {
  float beta;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const { y[i] = softplus(beta * x[i]) / beta; }
};

// dy/dx = sigmoid(beta·x); exp(−bx) overflowing to +inf gives 0, the limit.
struct SoftPlusBackward {
  float beta;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    dx[i] = dy[i] / (1.0f + expf(-beta * x[i]));
  }
};

}  // namespace netsmith::cuda::body
