// Transpose on the GPU: the gather of transpose_view.h (Note [Index views]).
#include "engine/backend/cuda/index_view_kernels.cuh"
#include "engine/ops/transpose/transpose_view.h"

namespace netsmith::cuda {

void register_transpose(OpRegistry& registry) {
  addCudaKernel(registry, "Transpose", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<CudaGatherKernel>("Transpose", ops::transposeView(setup.inputShapes.at(0), setup.params.ints("axes")),
                                              0.0f);
  });
}

}  // namespace netsmith::cuda
