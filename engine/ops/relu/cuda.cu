// ReLU on the GPU: cuDNN's activation on float32, body::ClampForward/ClampBackward on 16-bit
// activations (engine/backend/cuda/activation_kernel.h).
#include "engine/backend/cuda/activation_kernel.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

void register_relu(OpRegistry& registry) {
  addCudaKernel(registry, "ReLU", [](const KernelSetup&) { return makeCudnnActivationKernel(CUDNN_ACTIVATION_RELU, 0.0); },
                Activations::Also16Bit,
                Layouts::AlsoChannelsLast);  // element-wise: any layout
}

}  // namespace netsmith::cuda
