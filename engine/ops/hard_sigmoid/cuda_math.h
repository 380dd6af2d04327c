// HardSigmoid's per-element bodies, run by both backends (hard_sigmoid/schema.cpp's CPU kernel and
// hard_sigmoid/cuda.cu): oneDNN 2.6 and cuDNN have no hard sigmoid. tst_cuda_kernel_bodies checks
// them against the closed form.
#pragma once

#include <math.h>

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

// nnabla's HardSigmoid: y = 0 for x < −2.5, 1 for x > 2.5, 0.2·x + 0.5 in between.
struct HardSigmoidForward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const {
    y[i] = fminf(fmaxf(0.2f * x[i] + 0.5f, 0.0f), 1.0f);
  }
};

// dy/dx = 0.2 inside (−2.5, 2.5), 0 outside (and at the corners).
struct HardSigmoidBackward {
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    dx[i] = x[i] > -2.5f && x[i] < 2.5f ? 0.2f * dy[i] : 0.0f;
  }
};

}  // namespace netsmith::cuda::body
