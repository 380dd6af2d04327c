// Pad: adds a border of constant_value around the last axes of each sample (nnabla's Pad, mode
// "constant").
#include <memory>

#include "engine/backend/cpu/index_view_kernels.h"
#include "engine/ops/op_registry.h"
#include "engine/ops/pad/pad_view.h"

namespace netsmith::ops {

void register_pad(OpRegistry& registry) {
  OpSchema s;
  s.name = "Pad";
  s.category = "Shape";
  s.doc = "Adds a border of constant_value around each sample: pad_width gives (before, after) pairs for the "
          "last axes, e.g. 1,1,2,2 pads height by 1 and width by 2 on both sides.";
  s.inputs = {"x"};
  // Note [Pad modes]: nnabla also has "reflect" and "repeat"; only "constant" is implemented, and
  // the choice lists only it, so a project (or an import) asking for another mode is refused by
  // name rather than padded differently.
  s.params = {{.name = "pad_width", .type = ParamType::Ints, .defaultValue = Json::array({1, 1, 1, 1}), .min = 0.0,
               .help = "(before, after) pairs for the last len/2 per-sample axes"},
              {.name = "mode", .type = ParamType::String, .defaultValue = "constant", .choices = {"constant"},
               .help = "how the border is filled: constant (with constant_value)"},
              {.name = "constant_value", .type = ParamType::Float, .defaultValue = 0.0,
               .help = "the value of the border"}};
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
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
