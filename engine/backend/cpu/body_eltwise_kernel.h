// BodyEltwiseKernel: the CPU kernel of an element-wise activation that oneDNN 2.6 lacks (SELU,
// SoftPlus with beta, HardSigmoid). It runs the same host-device per-element bodies as the op's
// CUDA kernel (the op folder's cuda_math.h), so the two backends share one formula and
// tst_cuda_kernel_bodies checks it once.
//
//   forward:  body(i, x, y)       for every element i of the (N, ...) tensor
//   backward: body(i, x, dy, dx)  (reads the forward's input, not its output)
#pragma once

#include <memory>
#include <utility>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {

template <class Forward, class Backward>
class BodyEltwiseKernel final : public Kernel {
 public:
  BodyEltwiseKernel(Forward forward, Backward backward) : m_forward(forward), m_backward(backward) {}

  void forward(KernelCall& call) override {
    const float* x = call.inputs[0]->data();
    float* y = call.output.data();
    parallelFor(call.output.size(), [&](int64_t i) { m_forward(i, x, y); });
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const float* x = call.inputs[0]->data();
    const float* dy = call.outputGrad->data();
    float* out = dx->data();
    parallelFor(dx->size(), [&](int64_t i) { m_backward(i, x, dy, out); });
  }

 private:
  Forward m_forward;
  Backward m_backward;
};

template <class Forward, class Backward>
std::unique_ptr<Kernel> makeBodyEltwiseKernel(Forward forward, Backward backward) {
  return std::make_unique<BodyEltwiseKernel<Forward, Backward>>(forward, backward);
}

}  // namespace netsmith::cpu
