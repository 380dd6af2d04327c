// Softmax: exp(x) / sum(exp(x)) along one axis.
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeSoftmaxKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_softmax(OpRegistry& registry) {
  OpSchema s;
  s.name = "Softmax";
  s.category = "Activation";
  s.doc = "Softmax: y = exp(x) / sum(exp(x)) along one axis, so the values along it are positive and sum to 1.";
  s.inputs = {"x"};
  // Axes in Netsmith count per-sample axes, as Neural Network Console shows shapes (nnabla's
  // functions count the batch axis too, so nnabla axis = Netsmith axis + 1). nnabla's default is
  // the last axis; ours is the channel axis, which is the same for (C) inputs and gives a
  // per-pixel class distribution for (C,H,W) inputs.
  s.params = {{.name = "axis", .type = ParamType::Int, .defaultValue = 0, .min = 0.0,
               .help = "per-sample axis to normalise over, not counting the batch axis: 0 = channels "
                       "(the classes of a (C) vector)"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    const Shape& x = inputs.at(0);
    const int64_t axis = params.integer("axis");
    NS_CHECK(axis < static_cast<int64_t>(x.size()),
             "axis {} does not exist in the input of shape ({}), which has {} axes: choose an axis from 0 to {}", axis,
             shapeToString(x), x.size(), static_cast<int64_t>(x.size()) - 1);
    return x;
  };
  s.kernels["cpu"] = cpu::makeSoftmaxKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "axis2", .inputs = {{2, 3, 4}}, .params = {{"axis", 2}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
