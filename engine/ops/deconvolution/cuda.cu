// Deconvolution on the GPU: cuDNN (engine/backend/cuda/conv_kernel.h).
#include "engine/backend/cuda/conv_kernel.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

void register_deconvolution(OpRegistry& registry) {
  addCudaKernel(registry, "Deconvolution", [](const KernelSetup& setup) { return makeCudnnConvKernel(setup, true); });
}

}  // namespace netsmith::cuda
