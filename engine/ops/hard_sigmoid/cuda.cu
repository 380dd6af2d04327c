// HardSigmoid on the GPU: the element-wise bodies of hard_sigmoid/cuda_math.h (cuDNN has none).
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/hard_sigmoid/cuda_math.h"

namespace netsmith::cuda {

void register_hard_sigmoid(OpRegistry& registry) {
  addCudaKernel(registry, "HardSigmoid", [](const KernelSetup&) {
    return makeBodyActivationKernel("HardSigmoid", body::HardSigmoidForward{}, body::HardSigmoidBackward{});
  });
}

}  // namespace netsmith::cuda
