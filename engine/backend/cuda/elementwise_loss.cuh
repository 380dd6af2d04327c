// The CUDA kernel of every loss that compares a prediction with a same-shaped target element by
// element (SigmoidCrossEntropy, BinaryCrossEntropy, SquaredError, HuberLoss); the loss contract of
// engine/backend/cpu/elementwise_loss_kernel.h. A loss's cuda.cu supplies the formula as a struct
// with __device__ loss(x, t) and grad(x, t) in double, the CPU formula's arithmetic. Forward: one
// block per sample sums its elements in double (fixed order); backward: element-wise.
#pragma once

#include <memory>
#include <utility>

#include "engine/backend/cpu/elementwise_loss_kernel.h"
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

template <typename Formula>
__global__ void elementwiseLossForward(Formula f, const float* x, const float* t, float* y, int64_t perSample) {
  const int64_t base = blockIdx.x * perSample;
  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < perSample; i += blockDim.x) sum += f.loss(x[base + i], t[base + i]);
  sum = blockSum(sum);
  if (threadIdx.x == 0) y[blockIdx.x] = static_cast<float>(sum);
}

template <typename Formula>
__global__ void elementwiseLossBackward(Formula f, const float* x, const float* t, const float* w, float* dx,
                                        int64_t perSample, int64_t n) {
  NS_GRID_STRIDE(i, n) {
    const double weight = w[i / perSample];
    dx[i] = static_cast<float>(weight * f.grad(x[i], t[i]));
  }
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
    elementwiseLossForward<<<static_cast<unsigned>(batch), 128, 0, ctx(call).stream()>>>(
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
    elementwiseLossBackward<<<blocksFor(x.size()), kThreads, 0, ctx(call).stream()>>>(
        m_formula, x.data(), call.target->data(), call.outputGrad->data(), dx->data(), x.size() / batch, x.size());
    NS_CUDA_CHECK_LAUNCH();
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
