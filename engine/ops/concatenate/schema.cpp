// Concatenate: joins two or more inputs along one axis.
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeConcatenateKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_concatenate(OpRegistry& registry) {
  OpSchema s;
  s.name = "Concatenate";
  s.category = "Arithmetic";
  s.doc = "Joins two or more inputs along one axis; every other axis must have the same size in all inputs.";
  s.inputs = {"x"};
  s.variadic = true;
  // Per-sample axis, as Neural Network Console shows it (nnabla's axis counts the batch axis:
  // nnabla axis = Netsmith axis + 1).
  s.params = {{.name = "axis", .type = ParamType::Int, .defaultValue = 0, .min = 0.0,
               .help = "per-sample axis to join along, not counting the batch axis: 0 = channels"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    NS_CHECK(inputs.size() >= 2, "Concatenate needs two or more inputs, got {}: link another layer to it",
             inputs.size());
    const int64_t axis = params.integer("axis");
    const Shape& first = inputs[0];
    NS_CHECK(axis < static_cast<int64_t>(first.size()),
             "axis {} does not exist in input 0 of shape ({}), which has {} axes: choose an axis from 0 to {}", axis,
             shapeToString(first), first.size(), static_cast<int64_t>(first.size()) - 1);
    Shape out = first;
    out[axis] = 0;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Shape& x = inputs[k];
      bool compatible = x.size() == first.size();
      for (size_t d = 0; compatible && d < x.size(); ++d)
        compatible = static_cast<int64_t>(d) == axis || x[d] == first[d];
      NS_CHECK(compatible,
               "input {} has shape ({}) but input 0 has ({}): joining along axis {} needs the same number of axes "
               "and equal sizes on every other axis",
               k, shapeToString(x), shapeToString(first), axis);
      out[axis] += x[axis];
    }
    return out;
  };
  s.kernels["cpu"] = cpu::makeConcatenateKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "axis1_unequal", .inputs = {{2, 3, 4}, {2, 1, 4}, {2, 2, 4}}, .params = {{"axis", 1}}},
      {.name = "channels_unequal", .inputs = {{1, 3, 3}, {3, 3, 3}}, .params = {{"axis", 0}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
