// ELU on the GPU: cuDNN's activation with coef = alpha (engine/backend/cuda/activation_kernel.h).
#include "engine/backend/cuda/activation_kernel.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

void register_elu(OpRegistry& registry) {
  addCudaKernel(registry, "ELU", [](const KernelSetup& setup) {
    return makeCudnnActivationKernel(CUDNN_ACTIVATION_ELU, setup.params.number("alpha"));
  });
}

}  // namespace netsmith::cuda
