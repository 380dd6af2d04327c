// SoftPlus on the GPU: the element-wise bodies of softplus/cuda_math.h (cuDNN has no SoftPlus).
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/softplus/cuda_math.h"

namespace netsmith::cuda {

void register_softplus(OpRegistry& registry) {
  addCudaKernel(registry, "SoftPlus", [](const KernelSetup& setup) {
    const float beta = static_cast<float>(setup.params.number("beta"));
    return makeBodyActivationKernel("SoftPlus", body::SoftPlusForward{beta}, body::SoftPlusBackward{beta});
  });
}

}  // namespace netsmith::cuda
