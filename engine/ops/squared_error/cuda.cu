// SquaredError on the GPU (engine/backend/cuda/elementwise_loss.cuh); formula as squared_error/schema.cpp.
#include "engine/backend/cuda/elementwise_loss.cuh"

namespace netsmith::cuda {
namespace {
struct SquaredErrorFormula {
  __device__ double loss(double x, double t) const { return (x - t) * (x - t); }
  __device__ double grad(double x, double t) const { return 2.0 * (x - t); }
};
}  // namespace

void register_squared_error(OpRegistry& registry) {
  addCudaKernel(registry, "SquaredError",
                [](const KernelSetup&) { return makeCudaElementwiseLossKernel("SquaredError", SquaredErrorFormula{}); });
}

}  // namespace netsmith::cuda
