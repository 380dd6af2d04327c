// Mean on the GPU: CudaReduceKernel (index_view_kernels.cuh), Note [Deterministic GPU reductions].
#include "engine/backend/cuda/index_view_kernels.cuh"
#include "engine/ops/reduction.h"

namespace netsmith::cuda {

void register_mean(OpRegistry& registry) {
  addCudaKernel(registry, "Mean", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    const Shape& x = setup.inputShapes.at(0);
    const ReduceView v = reduceView(x, ops::reducedAxes(x, setup.params));
    return std::make_unique<CudaReduceKernel>("Mean", v, ops::ReductionKind::Mean == ops::ReductionKind::Max,
                                              ops::reductionScale(ops::ReductionKind::Mean, v));
  });
}

}  // namespace netsmith::cuda
