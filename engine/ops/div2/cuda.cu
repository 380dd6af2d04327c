// Div2 on the GPU: the broadcasting bodies of index_view.h (Note [Index views]).
#include "engine/backend/cuda/index_view_kernels.cuh"

namespace netsmith::cuda {

void register_div2(OpRegistry& registry) {
  addCudaKernel(registry, "Div2", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<CudaBinaryKernel>("Div2", body::BinaryOp::Div, setup.inputShapes.at(0),
                                              setup.inputShapes.at(1), setup.outputShape);
  });
}

}  // namespace netsmith::cuda
