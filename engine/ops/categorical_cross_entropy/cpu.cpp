// CategoricalCrossEntropy on the CPU, on the bodies of cuda_math.h. Loss contract:
// engine/backend/cpu/elementwise_loss_kernel.h (output (N, 1); in backward the output gradient
// holds each sample's weight).
#include <memory>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/core/error.h"
#include "engine/ops/class_index_target.h"
#include "engine/ops/categorical_cross_entropy/cuda_math.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

class CategoricalCrossEntropyKernel final : public Kernel {
 public:
  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];  // (N, C) probabilities
    const int64_t batch = x.dim(0), classes = x.dim(1);
    checkLabels(call, batch, classes);
    const float* t = call.target->data();
    float* y = call.output.data();
    parallelFor(batch, [&](int64_t n) { y[n] = cuda::cce::sampleLoss(x.data() + n * classes, t[n], classes); });
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0), classes = x.dim(1);
    checkLabels(call, batch, classes);
    const cuda::cce::Gradient body{classes};
    parallelFor(x.size(), [&](int64_t i) {
      body(i, x.data(), call.target->data(), call.outputGrad->data(), dx->data());
    });
  }

 private:
  static void checkLabels(const KernelCall& call, int64_t batch, int64_t classes) {
    checkClassIndexLabels(call, "CategoricalCrossEntropy", batch, classes, "one probability per class (a Softmax)");
  }
};

}  // namespace

std::unique_ptr<Kernel> makeCategoricalCrossEntropyKernel(const KernelSetup&) {
  return std::make_unique<CategoricalCrossEntropyKernel>();
}

}  // namespace netsmith::cpu
