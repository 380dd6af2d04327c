// BinaryCrossEntropy on the GPU (engine/backend/cuda/elementwise_loss.cuh); formula as
// binary_cross_entropy/schema.cpp (probabilities clamped to [1e-7, 1 - 1e-7]).
#include "engine/backend/cuda/elementwise_loss.cuh"

namespace netsmith::cuda {
namespace {
struct BinaryCrossEntropyFormula {
  __device__ static double clamp(double x) { return fmin(fmax(x, 1e-7), 1.0 - 1e-7); }
  __device__ double loss(double x, double t) const {
    const double p = clamp(x);
    return -(t * log(p) + (1.0 - t) * log(1.0 - p));
  }
  __device__ double grad(double x, double t) const {
    const double p = clamp(x);
    return (p - t) / (p * (1.0 - p));
  }
};
}  // namespace

void register_binary_cross_entropy(OpRegistry& registry) {
  addCudaKernel(registry, "BinaryCrossEntropy", [](const KernelSetup&) {
    return makeCudaElementwiseLossKernel("BinaryCrossEntropy", BinaryCrossEntropyFormula{});
  });
}

}  // namespace netsmith::cuda
