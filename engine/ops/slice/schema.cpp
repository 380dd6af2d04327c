// Slice: takes start:stop:step along the first axes of each sample (nnabla's Slice, with the
// per-sample axes Neural Network Console shows).
#include <memory>

#include "engine/backend/cpu/index_view_kernels.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/slice/slice_view.h"

namespace netsmith::ops {

void register_slice(OpRegistry& registry) {
  OpSchema s;
  s.name = "Slice";
  s.category = "Shape";
  s.doc = "Takes x[start:stop:step] along the first per-sample axes (Python's slicing: negative indices count "
          "from the end); the axes past the lists are kept whole.";
  s.inputs = {"x"};
  s.params = {{.name = "start", .type = ParamType::Ints, .defaultValue = Json::array({0}),
               .help = "first index per sliced axis, from axis 0 (channels); negative counts from the end"},
              {.name = "stop", .type = ParamType::Ints, .defaultValue = Json::array({1}),
               .help = "index after the last one per sliced axis; negative counts from the end"},
              {.name = "step", .type = ParamType::Ints, .defaultValue = Json::array({1}), .min = 1.0,
               .help = "distance between taken indices per sliced axis"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return slicedShape(inputs.at(0), params);
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<cpu::GatherKernel>(sliceView(setup.inputShapes.at(0), setup.params), 0.0f);
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "step2_negative_start", .inputs = {{4, 6, 5}}, .params = {{"start", {1, -5}}, {"stop", {4, 6}}, {"step", {2, 2}}}},
      {.name = "width", .inputs = {{2, 3, 7}}, .params = {{"start", {0, 0, 2}}, {"stop", {2, 3, -1}}, {"step", {1, 1, 1}}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
