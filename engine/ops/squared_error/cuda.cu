// SquaredError on the GPU (engine/backend/cuda/elementwise_loss.cuh); the formula is in cuda_math.h.
#include "engine/backend/cuda/elementwise_loss.cuh"
#include "engine/ops/squared_error/cuda_math.h"

namespace netsmith::cuda {

void register_squared_error(OpRegistry& registry) {
  addCudaKernel(registry, "SquaredError",
                [](const KernelSetup&) { return makeCudaElementwiseLossKernel("SquaredError", SquaredErrorFormula{}); });
}

}  // namespace netsmith::cuda
