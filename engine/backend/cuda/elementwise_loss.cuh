// The CUDA kernel of every loss that compares a prediction with a same-shaped target element by
// element (SigmoidCrossEntropy, BinaryCrossEntropy, SquaredError, HuberLoss); the loss contract of
// engine/backend/cpu/elementwise_loss_kernel.h. A loss's cuda_math.h supplies the formula as a
// struct with NS_HOST_DEVICE loss(x, t) and grad(x, t) in double, the CPU formula's arithmetic.
// Forward: one block per sample sums its elements in double (fixed order); backward: element-wise.
// The per-element steps are in elementwise_loss_body.h.
#pragma once

#include <memory>
#include <utility>

#include "engine/backend/cpu/elementwise_loss_kernel.h"
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/backend/cuda/elementwise_loss_body.h"

namespace netsmith::cuda {

template <typename Formula>
__global__ void elementwiseLossForward(Formula f, const float* x, const float* t, float* y, int64_t perSample) {
  const int64_t base = blockIdx.x * perSample;
  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < perSample; i += blockDim.x) sum += lossTerm(f, x[base + i], t[base + i]);
  sum = blockSum(sum);
  if (threadIdx.x == 0) y[blockIdx.x] = sampleLoss(sum);
}

template <typename Formula>
class CudaElementwiseLossKernel final : public Kernel {
 public:
  CudaElementwiseLossKernel(const char* op, Formula formula) : m_op(op), m_formula(std::move(formula)) {}

  void forward(KernelCall& call) override {
    cpu::checkSameShapeTarget(call, m_op);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0);
    if (batch == 0) return;
    const LaunchShape shape = perBlock("elementwiseLossForward", batch, 128);
    elementwiseLossForward<<<gridOf(shape), shape.block, 0, ctx(call).stream()>>>(
        m_formula, x.data(), call.target->data(), call.output.data(), x.size() / batch);
    NS_CUDA_CHECK_LAUNCH();
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    cpu::checkSameShapeTarget(call, m_op);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0);
    if (batch == 0) return;
    launchGridStride("elementwiseLossBackward", ctx(call).stream(), x.size(),
                     body::ElementwiseLossGradient<Formula>{m_formula, x.size() / batch}, x.data(),
                     call.target->data(), call.outputGrad->data(), dx->data());
  }

 private:
  const char* m_op;
  Formula m_formula;
};

template <typename Formula>
std::unique_ptr<Kernel> makeCudaElementwiseLossKernel(const char* op, Formula formula) {
  return std::make_unique<CudaElementwiseLossKernel<Formula>>(op, std::move(formula));
}

}  // namespace netsmith::cuda
