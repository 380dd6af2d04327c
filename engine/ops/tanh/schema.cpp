// Tanh: hyperbolic tangent, element-wise.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_tanh(OpRegistry& registry) {
  OpSchema s;
  s.name = "Tanh";
  s.category = "Activation";
  s.doc = "Hyperbolic tangent: y = tanh(x), element-wise.";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f);
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
