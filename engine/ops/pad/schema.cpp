// Pad: adds a border around the last axes of each sample, constant_value or the input mirrored
// (nnabla's Pad, modes constant and reflect).
#include <memory>

#include "engine/backend/cpu/index_view_kernels.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/pad/pad_view.h"

namespace netsmith::ops {

void register_pad(OpRegistry& registry) {
  OpSchema s;
  s.name = "Pad";
  s.category = "Shape";
  s.doc = "Adds a border of constant_value (or, mode reflect, the input mirrored) around each sample: pad_width "
          "gives (before, after) pairs for the last axes, e.g. 1,1,2,2 pads height by 1 and width by 2 on both sides.";
  s.inputs = {"x"};
  // nnabla's modes constant and reflect (its "repeat" is not implemented and not offered).
  s.params = {{.name = "pad_width", .type = ParamType::Ints, .defaultValue = Json::array({1, 1, 1, 1}), .min = 0.0,
               .help = "(before, after) pairs for the last len/2 per-sample axes"},
              {.name = "mode", .type = ParamType::String, .defaultValue = "constant", .choices = {"constant", "reflect"},
               .help = "constant: filled with constant_value; reflect: the input mirrored at its edges"},
              {.name = "constant_value", .type = ParamType::Float, .defaultValue = 0.0,
               .help = "the value of the border (mode constant)"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return paddedShape(inputs.at(0), params);
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<cpu::GatherKernel>(padView(setup.inputShapes.at(0), setup.params),
                                               static_cast<float>(setup.params.number("constant_value")));
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "asymmetric_value", .inputs = {{2, 4, 5}}, .params = {{"pad_width", {0, 2, 3, 1}}, {"constant_value", 0.5}}},
      {.name = "channels", .inputs = {{3, 4, 4}}, .params = {{"pad_width", {1, 0, 0, 0, 2, 2}}}},
      {.name = "reflect", .inputs = {{2, 4, 5}}, .params = {{"pad_width", {3, 1, 2, 4}}, {"mode", "reflect"}}},
      {.name = "reflect_channels",
       .inputs = {{3, 2, 3}},
       .params = {{"pad_width", {2, 1, 0, 1, 1, 0}}, {"mode", "reflect"}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
