// Add2: element-wise sum of two inputs of one shape (residual connections).
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeAdd2Kernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_add2(OpRegistry& registry) {
  OpSchema s;
  s.name = "Add2";
  s.category = "Arithmetic";
  s.doc = "Element-wise sum of two inputs of the same shape: y = x0 + x1.";
  s.inputs = {"x0", "x1"};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams&) {
    NS_CHECK(inputs.at(0) == inputs.at(1),
             "the inputs have different shapes, ({}) and ({}): Add2 needs equal shapes; change a layer before it",
             shapeToString(inputs[0]), shapeToString(inputs[1]));
    return inputs[0];
  };
  s.kernels["cpu"] = cpu::makeAdd2Kernel;
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
