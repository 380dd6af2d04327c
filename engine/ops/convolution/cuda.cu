// Convolution on the GPU: cuDNN (engine/backend/cuda/conv_kernel.h).
#include "engine/backend/cuda/conv_kernel.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

void register_convolution(OpRegistry& registry) {
  addCudaKernel(registry, "Convolution", [](const KernelSetup& setup) { return makeCudnnConvKernel(setup, false); },
                Activations::Also16Bit,
                Layouts::AlsoChannelsLast);
}

}  // namespace netsmith::cuda
