// SigmoidCrossEntropy's formula for the GPU kernel (engine/backend/cuda/elementwise_loss.cuh),
// host-device so tst_cuda_kernel_bodies compares it with the CPU op: the stable formula of
// sigmoid_cross_entropy/schema.cpp.
#pragma once

#include <cmath>

#include "engine/core/host_device.h"

namespace netsmith::cuda {

struct SigmoidCrossEntropyFormula {
  // max(x, 0) with std::max's comparison, as the CPU formula.
  NS_HOST_DEVICE double loss(double x, double t) const {
    return (x < 0.0 ? 0.0 : x) - x * t + log1p(exp(-fabs(x)));
  }
  NS_HOST_DEVICE double grad(double x, double t) const {
    const double e = exp(-fabs(x));
    const double sigmoid = x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    return sigmoid - t;
  }
};

}  // namespace netsmith::cuda
