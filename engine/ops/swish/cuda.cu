// Swish on the GPU: cuDNN's activation (engine/backend/cuda/activation_kernel.h).
#include "engine/backend/cuda/activation_kernel.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

void register_swish(OpRegistry& registry) {
  addCudaKernel(registry, "Swish", [](const KernelSetup&) { return makeCudnnActivationKernel(CUDNN_ACTIVATION_SWISH, 1.0); });
}

}  // namespace netsmith::cuda
