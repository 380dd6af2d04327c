// The CUDA kernel of an element-wise activation that cuDNN has no mode for (GELU, SELU, SoftPlus,
// Mish, HardSigmoid, HardSwish): the op folder's host-device bodies (cuda_math.h) in a
// grid-stride loop. Same contract as cpu::BodyEltwiseKernel:
//   forward:  body(i, x, y);  backward: body(i, x, dy, dx), from the forward's input.
#pragma once

#include <memory>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

template <class Forward, class Backward>
class BodyActivationKernel final : public Kernel {
 public:
  BodyActivationKernel(const char* name, Forward forward, Backward backward)
      : m_name(name), m_forward(forward), m_backward(backward) {}

  void forward(KernelCall& call) override {
    launchGridStride(m_name, ctx(call).stream(), call.output.size(), m_forward, call.inputs[0]->data(),
                     call.output.data());
  }

  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    launchGridStride(m_name, ctx(call).stream(), call.outputGrad->size(), m_backward, call.inputs[0]->data(),
                     call.outputGrad->data(), call.inputGrads[0]->data());
  }

 private:
  const char* m_name;  // the op's name, for launch errors
  Forward m_forward;
  Backward m_backward;
};

template <class Forward, class Backward>
std::unique_ptr<Kernel> makeBodyActivationKernel(const char* name, Forward forward, Backward backward) {
  return std::make_unique<BodyActivationKernel<Forward, Backward>>(name, forward, backward);
}

}  // namespace netsmith::cuda
