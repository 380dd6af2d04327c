// Reshape on the GPU: the copy kernel of flatten/cuda.cu.
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

std::unique_ptr<Kernel> makeCudaCopyKernel(const KernelSetup& setup);  // flatten/cuda.cu

void register_reshape(OpRegistry& registry) { addCudaKernel(registry, "Reshape", makeCudaCopyKernel, Activations::Also16Bit); }

}  // namespace netsmith::cuda
