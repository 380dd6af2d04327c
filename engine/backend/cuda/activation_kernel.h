// The CUDA kernel of the element-wise activations cuDNN provides (ReLU, ReLU6, Sigmoid, Tanh, ELU,
// Swish): an activation's folder names the cuDNN mode and coefficient. ReLU and ReLU6 also take
// 16-bit activations (Note [16-bit activations]), computed by the clamp bodies of
// elementwise_bodies.h.
#pragma once

#include <cudnn.h>

#include <memory>

#include "engine/op_interface/op_schema.h"

namespace netsmith::cuda {

// coef: ELU's alpha, Swish's beta, the clipped ReLU's ceiling (6 for ReLU6); ignored otherwise.
std::unique_ptr<Kernel> makeCudnnActivationKernel(cudnnActivationMode_t mode, double coef);

}  // namespace netsmith::cuda
