// Slice on the GPU: the gather of slice_view.h (Note [Index views]).
#include "engine/backend/cuda/index_view_kernels.cuh"
#include "engine/ops/slice/slice_view.h"

namespace netsmith::cuda {

void register_slice(OpRegistry& registry) {
  addCudaKernel(registry, "Slice", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<CudaGatherKernel>("Slice", ops::sliceView(setup.inputShapes.at(0), setup.params), 0.0f);
  });
}

}  // namespace netsmith::cuda
