// Pad on the GPU: the gather of pad_view.h (Note [Index views]).
#include "engine/backend/cuda/index_view_kernels.cuh"
#include "engine/ops/pad/pad_view.h"

namespace netsmith::cuda {

void register_pad(OpRegistry& registry) {
  addCudaKernel(registry, "Pad", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<CudaGatherKernel>("Pad", ops::padView(setup.inputShapes.at(0), setup.params),
                                              static_cast<float>(setup.params.number("constant_value")));
  });
}

}  // namespace netsmith::cuda
