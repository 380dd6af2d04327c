// ElementwiseLossKernel: the CPU kernel of every loss that compares a prediction with a target of
// the same shape element by element (SigmoidCrossEntropy, BinaryCrossEntropy, SquaredError,
// HuberLoss). A loss's folder supplies only the per-element formula and its derivative.
//
// Contract of a loss kernel: the output is (N, 1), one loss per sample (the sum over the sample's
// elements); the trainer sums the rows and divides by the logical batch. In backward the output
// gradient (N, 1) holds each sample's weight w_n, and dx = w_n * d(loss_n)/dx.
#pragma once

#include <memory>
#include <utility>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {

// The target must be (N, ...) with exactly the prediction's shape.
inline void checkSameShapeTarget(const KernelCall& call, const char* op) {
  const Tensor& x = *call.inputs[0];
  NS_CHECK(call.target, "{} got no target: a loss needs the dataset's target values", op);
  NS_CHECK(call.target->shape() == x.shape(),
           "{} got a target of shape ({}) for a prediction of shape ({}): the dataset's target must have the "
           "prediction's shape per sample",
           op, shapeToString(call.target->shape()), shapeToString(x.shape()));
}

// Formula needs: double loss(double x, double t) const; double grad(double x, double t) const
// (the derivative of loss with respect to x).
template <typename Formula>
class ElementwiseLossKernel final : public Kernel {
 public:
  ElementwiseLossKernel(const char* op, Formula formula) : m_op(op), m_formula(std::move(formula)) {}

  void forward(KernelCall& call) override {
    checkSameShapeTarget(call, m_op);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0);
    const int64_t perSample = batch ? x.size() / batch : 0;
    const float* xs = x.data();
    const float* ts = call.target->data();
    float* y = call.output.data();
    parallelFor(batch, [&](int64_t n) {
      // Summed in double: a sample may have thousands of elements (a per-pixel loss).
      double sum = 0.0;
      for (int64_t i = n * perSample; i < (n + 1) * perSample; ++i) sum += m_formula.loss(xs[i], ts[i]);
      y[n] = static_cast<float>(sum);
    });
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    checkSameShapeTarget(call, m_op);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0);
    const int64_t perSample = batch ? x.size() / batch : 0;
    const float* xs = x.data();
    const float* ts = call.target->data();
    const float* w = call.outputGrad->data();
    float* g = dx->data();
    parallelFor(batch, [&](int64_t n) {
      const double weight = w[n];
      for (int64_t i = n * perSample; i < (n + 1) * perSample; ++i)
        g[i] = static_cast<float>(weight * m_formula.grad(xs[i], ts[i]));
    });
  }

 private:
  const char* m_op;
  Formula m_formula;
};

template <typename Formula>
std::unique_ptr<Kernel> makeElementwiseLossKernel(const char* op, Formula formula) {
  return std::make_unique<ElementwiseLossKernel<Formula>>(op, std::move(formula));
}

}  // namespace netsmith::cpu
