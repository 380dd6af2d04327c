// HuberLoss's formula for the GPU kernel (engine/backend/cuda/elementwise_loss.cuh), host-device
// so tst_cuda_kernel_bodies compares it with the CPU op (huber_loss/schema.cpp).
#pragma once

#include <cmath>

#include "engine/core/host_device.h"

namespace netsmith::cuda {

struct HuberFormula {
  double delta;
  NS_HOST_DEVICE double loss(double x, double t) const {
    const double d = fabs(x - t);
    return d < delta ? d * d : delta * (2.0 * d - delta);
  }
  NS_HOST_DEVICE double grad(double x, double t) const {
    const double d = x - t;
    if (fabs(d) < delta) return 2.0 * d;
    return d > 0 ? 2.0 * delta : -2.0 * delta;
  }
};

}  // namespace netsmith::cuda
