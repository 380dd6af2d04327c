// BinaryCrossEntropy's formula for the GPU kernel (engine/backend/cuda/elementwise_loss.cuh),
// host-device so tst_cuda_kernel_bodies compares it with the CPU op: binary_cross_entropy/schema.cpp,
// probabilities clamped to [1e-7, 1 − 1e-7].
#pragma once

#include <cmath>

#include "engine/core/host_device.h"

namespace netsmith::cuda {

struct BinaryCrossEntropyFormula {
  // std::clamp's comparisons, not fmin(fmax(...)): fmax(NaN, 1e-7) is 1e-7, which turned a NaN
  // prediction into a finite loss on the GPU where the CPU (and the trainer's NaN check) sees NaN.
  NS_HOST_DEVICE static double clamp(double x) {
    constexpr double kLow = 1e-7, kHigh = 1.0 - 1e-7;
    return x < kLow ? kLow : (kHigh < x ? kHigh : x);
  }
  NS_HOST_DEVICE double loss(double x, double t) const {
    const double p = clamp(x);
    return -(t * log(p) + (1.0 - t) * log(1.0 - p));
  }
  NS_HOST_DEVICE double grad(double x, double t) const {
    const double p = clamp(x);
    return (p - t) / (p * (1.0 - p));
  }
};

}  // namespace netsmith::cuda
