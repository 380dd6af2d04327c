// Input: where the dataset's samples enter the network.
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {

void register_input(OpRegistry& registry) {
  OpSchema s;
  s.name = "Input";
  s.category = "IO";
  s.doc = "The network's input: one sample of the dataset, of the given shape (e.g. 1,28,28 for a grey 28x28 image).";
  s.isInput = true;
  s.params = {{.name = "shape", .type = ParamType::Ints, .defaultValue = Json::array({1, 28, 28}), .min = 1.0,
               .help = "per-sample shape, without the batch axis: (C,H,W) for images, (D) for feature vectors"}};
  s.inferShape = [](const std::vector<Shape>&, const OpParams& params) { return Shape(params.ints("shape")); };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
