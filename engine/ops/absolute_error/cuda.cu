// AbsoluteError on the GPU (engine/backend/cuda/elementwise_loss.cuh); the formula is in cuda_math.h.
#include "engine/backend/cuda/elementwise_loss.cuh"
#include "engine/ops/absolute_error/cuda_math.h"

namespace netsmith::cuda {

void register_absolute_error(OpRegistry& registry) {
  addCudaKernel(registry, "AbsoluteError",
                [](const KernelSetup&) { return makeCudaElementwiseLossKernel("AbsoluteError", AbsoluteErrorFormula{}); });
}

}  // namespace netsmith::cuda
