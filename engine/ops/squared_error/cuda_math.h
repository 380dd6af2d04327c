// SquaredError's formula for the GPU kernel (engine/backend/cuda/elementwise_loss.cuh), host-device
// so tst_cuda_kernel_bodies compares it with the CPU op (squared_error/schema.cpp).
#pragma once

#include "engine/core/host_device.h"

namespace netsmith::cuda {

struct SquaredErrorFormula {
  NS_HOST_DEVICE double loss(double x, double t) const { return (x - t) * (x - t); }
  NS_HOST_DEVICE double grad(double x, double t) const { return 2.0 * (x - t); }
};

}  // namespace netsmith::cuda
