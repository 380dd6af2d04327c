// Dropout: zeroes each element with probability p while training and scales the survivors.
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeDropoutKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_dropout(OpRegistry& registry) {
  OpSchema s;
  s.name = "Dropout";
  s.category = "Regularization";
  s.doc = "While training, sets each element to 0 with probability p and multiplies the others by 1 / (1 - p); "
          "at inference it passes the input through unchanged.";
  s.inputs = {"x"};
  s.params = {{.name = "p", .type = ParamType::Float, .defaultValue = 0.5, .min = 0.0, .max = 1.0,
               .help = "probability of dropping an element, in [0, 1)"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    const double p = params.number("p");
    NS_CHECK(p < 1.0, "p = {} would drop every element: choose a probability below 1", p);
    return inputs.at(0);
  };
  s.drawsRandomNumbers = true;
  s.kernels["cpu"] = cpu::makeDropoutKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "p0.2", .inputs = {{3, 5, 5}}, .params = {{"p", 0.2}}},
      {.name = "p0", .inputs = {{6}}, .params = {{"p", 0.0}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
