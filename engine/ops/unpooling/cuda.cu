// Unpooling on the GPU: the views of unpool_view.h (Note [Index views]).
#include "engine/backend/cuda/index_view_kernels.cuh"
#include "engine/ops/unpooling/unpool_view.h"

namespace netsmith::cuda {

void register_unpooling(OpRegistry& registry) {
  addCudaKernel(registry, "Unpooling", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    const Shape& x = setup.inputShapes.at(0);
    const auto kernel = setup.params.ints("kernel");
    return std::make_unique<CudaGatherKernel>("Unpooling", ops::unpoolView(x, kernel), 0.0f,
                                              ops::unpoolGradView(x, kernel));
  });
}

}  // namespace netsmith::cuda
