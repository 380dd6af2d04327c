// BinaryCrossEntropy on the GPU (engine/backend/cuda/elementwise_loss.cuh); the formula is in
// cuda_math.h.
#include "engine/backend/cuda/elementwise_loss.cuh"
#include "engine/ops/binary_cross_entropy/cuda_math.h"

namespace netsmith::cuda {

void register_binary_cross_entropy(OpRegistry& registry) {
  addCudaKernel(registry, "BinaryCrossEntropy", [](const KernelSetup&) {
    return makeCudaElementwiseLossKernel("BinaryCrossEntropy", BinaryCrossEntropyFormula{});
  });
}

}  // namespace netsmith::cuda
