// SigmoidCrossEntropy on the GPU (engine/backend/cuda/elementwise_loss.cuh); the formula is in
// cuda_math.h.
#include "engine/backend/cuda/elementwise_loss.cuh"
#include "engine/ops/sigmoid_cross_entropy/cuda_math.h"

namespace netsmith::cuda {

void register_sigmoid_cross_entropy(OpRegistry& registry) {
  addCudaKernel(registry, "SigmoidCrossEntropy", [](const KernelSetup&) {
    return makeCudaElementwiseLossKernel("SigmoidCrossEntropy", SigmoidCrossEntropyFormula{});
  });
}

}  // namespace netsmith::cuda
