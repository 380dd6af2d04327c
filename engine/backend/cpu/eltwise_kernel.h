// EltwiseKernel: one CPU kernel for every element-wise activation oneDNN provides (ReLU,
// LeakyReLU, ELU, Sigmoid, Tanh, Swish). An activation's folder only names its algorithm.
#pragma once

#include <memory>
#include <oneapi/dnnl/dnnl.hpp>

#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {

// alpha/beta as oneDNN defines them per algorithm (e.g. eltwise_relu: alpha = negative slope).
// The *_use_dst_for_bwd algorithms read the forward's output in backward instead of its input,
// so the input need not exist: ReLU uses eltwise_relu_use_dst_for_bwd, which lets the layer
// before it write the ReLU's output directly (Note [Fused ReLU]).
std::unique_ptr<Kernel> makeEltwiseKernel(dnnl::algorithm algorithm, float alpha, float beta);

}  // namespace netsmith::cpu
