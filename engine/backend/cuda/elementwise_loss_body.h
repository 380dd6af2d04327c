// The per-element steps of the element-wise losses' GPU kernels (elementwise_loss.cuh), host-device
// so that tst_cuda_kernel_bodies runs them on the CPU against the CPU ops. A formula (a loss's
// cuda_math.h) has NS_HOST_DEVICE double loss(x, t) and grad(x, t), the CPU formula's arithmetic.
// Loss contract: engine/backend/cpu/elementwise_loss_kernel.h.
#pragma once

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda {

// Forward: a sample's loss is the sum of f.loss over its elements in double (the kernel sums in a
// fixed block order), stored as float.
template <typename Formula>
NS_HOST_DEVICE inline double lossTerm(const Formula& f, float x, float t) {
  return f.loss(x, t);
}
NS_HOST_DEVICE inline float sampleLoss(double sum) { return static_cast<float>(sum); }

namespace body {

// Backward, element i of (batch, perSample): dx = w[sample]·f.grad(x, t), the weight in double.
template <typename Formula>
struct ElementwiseLossGradient {
  Formula f;
  int64_t perSample;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* t, const float* w, float* dx) const {
    const double weight = w[i / perSample];
    dx[i] = static_cast<float>(weight * f.grad(x[i], t[i]));
  }
};

}  // namespace body
}  // namespace netsmith::cuda
