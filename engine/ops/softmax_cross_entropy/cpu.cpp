// SoftmaxCrossEntropy on the CPU, written directly. Loss contract: engine/backend/cpu/elementwise_loss_kernel.h
// (output (N, 1); in backward the output gradient holds each sample's weight).
#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/core/error.h"
#include "engine/ops/class_index_target.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

class SoftmaxCrossEntropyKernel final : public Kernel {
 public:
  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];  // (N, C)
    const int64_t batch = x.dim(0);
    const int64_t classes = x.dim(1);
    checkLabels(call, batch, classes);
    const float* t = call.target->data();
    float* y = call.output.data();
    parallelFor(batch, [&](int64_t n) {
      const float* row = x.data() + n * classes;
      y[n] = static_cast<float>(logSumExp(row, classes) - row[static_cast<int64_t>(t[n])]);
    });
  }

  // d(loss)/dx = softmax(x) - onehot(label), times the sample's weight.
  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0);
    const int64_t classes = x.dim(1);
    checkLabels(call, batch, classes);
    const float* t = call.target->data();
    const float* w = call.outputGrad->data();
    parallelFor(batch, [&](int64_t n) {
      const float* row = x.data() + n * classes;
      float* g = dx->data() + n * classes;
      const double lse = logSumExp(row, classes);
      const int64_t label = static_cast<int64_t>(t[n]);
      for (int64_t c = 0; c < classes; ++c)
        g[c] = static_cast<float>(w[n] * (std::exp(row[c] - lse) - (c == label ? 1.0 : 0.0)));
    });
  }

 private:
  // log(sum(exp(x))) with the maximum taken out first, so no exp overflows.
  static double logSumExp(const float* row, int64_t classes) {
    const double m = *std::max_element(row, row + classes);
    double sum = 0.0;
    for (int64_t c = 0; c < classes; ++c) sum += std::exp(row[c] - m);
    return m + std::log(sum);
  }

  static void checkLabels(const KernelCall& call, int64_t batch, int64_t classes) {
    checkClassIndexLabels(call, "SoftmaxCrossEntropy", batch, classes, "one score per class");
  }
};

}  // namespace

std::unique_ptr<Kernel> makeSoftmaxCrossEntropyKernel(const KernelSetup&) {
  return std::make_unique<SoftmaxCrossEntropyKernel>();
}

}  // namespace netsmith::cpu
