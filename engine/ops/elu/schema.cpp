// ELU: x for x > 0, alpha * (exp(x) - 1) otherwise, element-wise.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_elu(OpRegistry& registry) {
  OpSchema s;
  s.name = "ELU";
  s.category = "Activation";
  s.doc = "Exponential linear unit: y = x for x > 0, y = alpha * (exp(x) - 1) otherwise, element-wise.";
  s.inputs = {"x"};
  s.params = {{.name = "alpha", .type = ParamType::Float, .defaultValue = 1.0,
               .help = "value the output approaches for large negative inputs is -alpha"}};
  s.inferShape = sameShape;
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_elu, static_cast<float>(setup.params.number("alpha")),
                                  0.0f);
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "alpha0.5", .inputs = {{6}}, .params = {{"alpha", 0.5}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
