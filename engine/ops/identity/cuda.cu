// Identity on the GPU: the copy kernel of flatten/cuda.cu.
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

std::unique_ptr<Kernel> makeCudaCopyKernel(const KernelSetup& setup);  // flatten/cuda.cu

void register_identity(OpRegistry& registry) { addCudaKernel(registry, "Identity", makeCudaCopyKernel); }

}  // namespace netsmith::cuda
