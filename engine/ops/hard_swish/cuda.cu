// HardSwish on the GPU: the element-wise bodies of hard_swish/cuda_math.h (cuDNN has none).
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/hard_swish/cuda_math.h"

namespace netsmith::cuda {

void register_hard_swish(OpRegistry& registry) {
  addCudaKernel(registry, "HardSwish", [](const KernelSetup&) {
    return makeBodyActivationKernel("HardSwish", body::HardSwishForward{}, body::HardSwishBackward{});
  });
}

}  // namespace netsmith::cuda
