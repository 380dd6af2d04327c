// Sigmoid: 1 / (1 + exp(-x)), element-wise.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_sigmoid(OpRegistry& registry) {
  OpSchema s;
  s.name = "Sigmoid";
  s.category = "Activation";
  s.doc = "Logistic sigmoid: y = 1 / (1 + exp(-x)), element-wise.";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f);
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
