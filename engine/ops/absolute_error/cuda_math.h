// AbsoluteError's formula, host-device: the CPU kernel (schema.cpp) and the GPU kernel
// (engine/backend/cuda/elementwise_loss.cuh) both use it; tst_loss_formulas checks it against
// the closed form on the CPU.
#pragma once

#include "engine/core/host_device.h"

namespace netsmith::cuda {

// |x - t|; its derivative sign(x - t), 0 where x == t (nnabla's AbsoluteError backward).
struct AbsoluteErrorFormula {
  NS_HOST_DEVICE double loss(double x, double t) const { return x > t ? x - t : t - x; }
  NS_HOST_DEVICE double grad(double x, double t) const { return x > t ? 1.0 : (x < t ? -1.0 : 0.0); }
};

}  // namespace netsmith::cuda
