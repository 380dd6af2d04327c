// LeakyReLU's GPU bodies (host-device: gridStrideKernel runs them on the GPU, tst_cuda_kernel_bodies
// on the CPU against the CPU op, oneDNN's eltwise_relu with alpha).
#pragma once

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

// y = x for x > 0, alpha·x otherwise.
struct LeakyReluForward {
  float alpha;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const {
    y[i] = x[i] > 0.0f ? x[i] : alpha * x[i];
  }
};

// oneDNN's eltwise_relu backward: dy where x > 0, alpha·dy elsewhere.
struct LeakyReluBackward {
  float alpha;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    dx[i] = x[i] > 0.0f ? dy[i] : alpha * dy[i];
  }
};

}  // namespace netsmith::cuda::body
