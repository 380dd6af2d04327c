// Mish on the GPU: the element-wise bodies of mish/cuda_math.h (cuDNN has no Mish).
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/mish/cuda_math.h"

namespace netsmith::cuda {

void register_mish(OpRegistry& registry) {
  addCudaKernel(registry, "Mish",
                [](const KernelSetup&) { return makeBodyActivationKernel("Mish", body::MishForward{}, body::MishBackward{}); });
}

}  // namespace netsmith::cuda
