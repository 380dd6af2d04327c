// Mul2 on the GPU: the broadcasting bodies of index_view.h (Note [Index views]).
#include "engine/backend/cuda/index_view_kernels.cuh"

namespace netsmith::cuda {

void register_mul2(OpRegistry& registry) {
  addCudaKernel(registry, "Mul2", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<CudaBinaryKernel>("Mul2", body::BinaryOp::Mul, setup.inputShapes.at(0),
                                              setup.inputShapes.at(1), setup.outputShape);
  });
}

}  // namespace netsmith::cuda
