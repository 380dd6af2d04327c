// SigmoidCrossEntropy on the GPU (engine/backend/cuda/elementwise_loss.cuh); the stable formula of
// sigmoid_cross_entropy/schema.cpp.
#include "engine/backend/cuda/elementwise_loss.cuh"

namespace netsmith::cuda {
namespace {
struct SigmoidCrossEntropyFormula {
  __device__ double loss(double x, double t) const { return fmax(x, 0.0) - x * t + log1p(exp(-fabs(x))); }
  __device__ double grad(double x, double t) const {
    const double e = exp(-fabs(x));
    const double sigmoid = x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    return sigmoid - t;
  }
};
}  // namespace

void register_sigmoid_cross_entropy(OpRegistry& registry) {
  addCudaKernel(registry, "SigmoidCrossEntropy", [](const KernelSetup&) {
    return makeCudaElementwiseLossKernel("SigmoidCrossEntropy", SigmoidCrossEntropyFormula{});
  });
}

}  // namespace netsmith::cuda
