// KLDivergence on the GPU (engine/backend/cuda/elementwise_loss.cuh); the formula is in cuda_math.h.
#include "engine/backend/cuda/elementwise_loss.cuh"
#include "engine/ops/kl_divergence/cuda_math.h"

namespace netsmith::cuda {

void register_kl_divergence(OpRegistry& registry) {
  addCudaKernel(registry, "KLDivergence",
                [](const KernelSetup&) { return makeCudaElementwiseLossKernel("KLDivergence", KLDivergenceFormula{}); });
}

}  // namespace netsmith::cuda
