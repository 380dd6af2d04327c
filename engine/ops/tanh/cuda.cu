// Tanh on the GPU: cuDNN's activation (engine/backend/cuda/activation_kernel.h).
#include "engine/backend/cuda/activation_kernel.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

void register_tanh(OpRegistry& registry) {
  addCudaKernel(registry, "Tanh", [](const KernelSetup&) { return makeCudnnActivationKernel(CUDNN_ACTIVATION_TANH, 0.0); });
}

}  // namespace netsmith::cuda
