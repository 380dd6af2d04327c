// Mish: x · tanh(softplus(x)), element-wise.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_mish(OpRegistry& registry) {
  OpSchema s;
  s.name = "Mish";
  s.category = "Activation";
  s.doc = "Mish: y = x * tanh(log(1 + exp(x))), element-wise (Misra 2019).";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  s.kernels["cpu"] = [](const KernelSetup&) { return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_mish, 0.0f, 0.0f); };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "wide", .inputs = {{6}}, .params = Json::object(), .inputScale = 4.0f},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
