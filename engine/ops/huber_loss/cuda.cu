// HuberLoss on the GPU (engine/backend/cuda/elementwise_loss.cuh); the formula is in cuda_math.h.
#include "engine/backend/cuda/elementwise_loss.cuh"
#include "engine/ops/huber_loss/cuda_math.h"

namespace netsmith::cuda {

void register_huber_loss(OpRegistry& registry) {
  addCudaKernel(registry, "HuberLoss", [](const KernelSetup& setup) {
    return makeCudaElementwiseLossKernel("HuberLoss", HuberFormula{setup.params.number("delta")});
  });
}

}  // namespace netsmith::cuda
