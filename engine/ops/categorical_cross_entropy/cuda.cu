// CategoricalCrossEntropy on the GPU: one thread per sample forward, element-wise backward, on
// the bodies of cuda_math.h (the CPU kernel's). A label that is not a class index gives NaN (the
// trainer stops on it; the CPU kernel names the row).
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/class_index_target.h"
#include "engine/ops/categorical_cross_entropy/cuda_math.h"

namespace netsmith::cuda {
namespace {

__global__ void cceForward(const float* x, const float* t, float* y, int64_t batch, int64_t classes) {
  const int64_t n = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (n < batch) y[n] = cce::sampleLoss(x + n * classes, t[n], classes);
}

class CategoricalCrossEntropyKernel final : public Kernel {
 public:
  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    check(call);
    if (x.dim(0) == 0) return;
    const LaunchShape shape = perThread("categoricalCrossEntropyForward", x.dim(0), 128);
    cceForward<<<gridOf(shape), shape.block, 0, ctx(call).stream()>>>(x.data(), call.target->data(),
                                                                      call.output.data(), x.dim(0), x.dim(1));
    NS_CUDA_CHECK_LAUNCH();
  }
  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const Tensor& x = *call.inputs[0];
    check(call);
    launchGridStride("categoricalCrossEntropyBackward", ctx(call).stream(), x.size(), cce::Gradient{x.dim(1)},
                     x.data(), call.target->data(), call.outputGrad->data(), dx->data());
  }

 private:
  static void check(const KernelCall& call) { checkClassIndexTarget(call, "CategoricalCrossEntropy", call.inputs[0]->dim(0)); }
};

}  // namespace

void register_categorical_cross_entropy(OpRegistry& registry) {
  addCudaKernel(registry, "CategoricalCrossEntropy",
                [](const KernelSetup&) { return std::make_unique<CategoricalCrossEntropyKernel>(); });
}

}  // namespace netsmith::cuda
