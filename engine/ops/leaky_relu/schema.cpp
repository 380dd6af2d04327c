// LeakyReLU: x for x > 0, alpha * x otherwise, element-wise.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_leaky_relu(OpRegistry& registry) {
  OpSchema s;
  s.name = "LeakyReLU";
  s.category = "Activation";
  s.doc = "Leaky rectified linear unit: y = x for x > 0, y = alpha * x otherwise, element-wise.";
  s.inputs = {"x"};
  s.params = {{.name = "alpha", .type = ParamType::Float, .defaultValue = 0.1,
               .help = "slope for negative inputs (0 gives ReLU)"}};
  s.inferShape = sameShape;
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    // oneDNN's eltwise_relu with a non-zero alpha is the leaky variant.
    return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_relu, static_cast<float>(setup.params.number("alpha")),
                                  0.0f);
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "alpha0.3", .inputs = {{6}}, .params = {{"alpha", 0.3}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
