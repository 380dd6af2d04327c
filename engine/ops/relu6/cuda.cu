// ReLU6 on the GPU: cuDNN's clipped ReLU with ceiling 6 on float32, the clamp bodies on 16-bit
// activations (engine/backend/cuda/activation_kernel.h).
#include "engine/backend/cuda/activation_kernel.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

void register_relu6(OpRegistry& registry) {
  addCudaKernel(registry, "ReLU6",
                [](const KernelSetup&) { return makeCudnnActivationKernel(CUDNN_ACTIVATION_CLIPPED_RELU, 6.0); },
                Activations::Also16Bit,
                Layouts::AlsoChannelsLast);  // element-wise: any layout
}

}  // namespace netsmith::cuda
