// HuberLoss on the GPU (engine/backend/cuda/elementwise_loss.cuh); formula as huber_loss/schema.cpp.
#include "engine/backend/cuda/elementwise_loss.cuh"

namespace netsmith::cuda {
namespace {
struct HuberFormula {
  double delta;
  __device__ double loss(double x, double t) const {
    const double d = fabs(x - t);
    return d < delta ? d * d : delta * (2.0 * d - delta);
  }
  __device__ double grad(double x, double t) const {
    const double d = x - t;
    if (fabs(d) < delta) return 2.0 * d;
    return d > 0 ? 2.0 * delta : -2.0 * delta;
  }
};
}  // namespace

void register_huber_loss(OpRegistry& registry) {
  addCudaKernel(registry, "HuberLoss", [](const KernelSetup& setup) {
    return makeCudaElementwiseLossKernel("HuberLoss", HuberFormula{setup.params.number("delta")});
  });
}

}  // namespace netsmith::cuda
