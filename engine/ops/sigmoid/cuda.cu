// Sigmoid on the GPU: cuDNN's activation (engine/backend/cuda/activation_kernel.h).
#include "engine/backend/cuda/activation_kernel.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

void register_sigmoid(OpRegistry& registry) {
  addCudaKernel(registry, "Sigmoid", [](const KernelSetup&) { return makeCudnnActivationKernel(CUDNN_ACTIVATION_SIGMOID, 0.0); });
}

}  // namespace netsmith::cuda
