// KLDivergence's formula, host-device: the CPU kernel (schema.cpp) and the GPU kernel
// (engine/backend/cuda/elementwise_loss.cuh) both use it; tst_loss_formulas checks it against
// the closed form on the CPU.
#pragma once

#include <cmath>

#include "engine/core/host_device.h"

namespace netsmith::cuda {

// One element of KL(t || x) = sum t (log t - log x) (nnabla's KLMultinomial with the target as
// the first distribution): t log t is 0 at t = 0, and the prediction is clamped to [1e-7, 1] so
// a saturated Softmax output gives a large loss rather than infinity; the gradient -t / x is
// taken at the clamped value, so a wrong saturated prediction is still pushed back.
struct KLDivergenceFormula {
  NS_HOST_DEVICE static double clampProbability(double x) {
    constexpr double kLow = 1e-7;
    return x < kLow ? kLow : (1.0 < x ? 1.0 : x);
  }
  NS_HOST_DEVICE double loss(double x, double t) const {
    return t > 0.0 ? t * (log(t) - log(clampProbability(x))) : 0.0;
  }
  NS_HOST_DEVICE double grad(double x, double t) const { return t > 0.0 ? -t / clampProbability(x) : 0.0; }
};

}  // namespace netsmith::cuda
