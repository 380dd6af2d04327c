// SELU on the GPU: the element-wise bodies of selu/cuda_math.h (cuDNN has no SELU).
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/selu/cuda_math.h"

namespace netsmith::cuda {

void register_selu(OpRegistry& registry) {
  addCudaKernel(registry, "SELU", [](const KernelSetup& setup) {
    const float scale = static_cast<float>(setup.params.number("scale"));
    const float alpha = static_cast<float>(setup.params.number("alpha"));
    return makeBodyActivationKernel("SELU", body::SeluForward{scale, alpha}, body::SeluBackward{scale, alpha});
  });
}

}  // namespace netsmith::cuda
