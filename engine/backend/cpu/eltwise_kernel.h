// EltwiseKernel: one CPU kernel for every element-wise activation oneDNN provides (ReLU,
// LeakyReLU, ELU, Sigmoid, Tanh, Swish). An activation's folder only names its algorithm.
#pragma once

#include <memory>
#include <oneapi/dnnl/dnnl.hpp>

#include "engine/ops/op_schema.h"

namespace netsmith::cpu {

// alpha/beta as oneDNN defines them per algorithm (e.g. eltwise_relu: alpha = negative slope).
// useDstForBackward: the backward reads the forward output instead of the input (the
// *_use_dst_for_bwd algorithms), so the input need not be kept.
std::unique_ptr<Kernel> makeEltwiseKernel(dnnl::algorithm algorithm, float alpha, float beta);

}  // namespace netsmith::cpu
