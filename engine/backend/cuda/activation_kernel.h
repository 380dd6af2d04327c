// The CUDA kernel of the element-wise activations cuDNN provides (ReLU, Sigmoid, Tanh, ELU,
// Swish): an activation's folder names the cuDNN mode and coefficient.
#pragma once

#include <cudnn.h>

#include <memory>

#include "engine/ops/op_schema.h"

namespace netsmith::cuda {

// coef: ELU's alpha, Swish's beta; ignored otherwise.
std::unique_ptr<Kernel> makeCudnnActivationKernel(cudnnActivationMode_t mode, double coef);

}  // namespace netsmith::cuda
