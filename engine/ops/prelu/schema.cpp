// PReLU: y = x for x > 0, slope · x otherwise, with a learned slope shared by every element or
// one per index of the base_axis axis (nnabla's PReLU and PF.prelu).
#include <memory>

#include "engine/op_interface/op_registry.h"
#include "engine/ops/prelu/prelu_shape.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makePreluKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_prelu(OpRegistry& registry) {
  OpSchema s;
  s.name = "PReLU";
  s.category = "Activation";
  s.doc = "Parametric ReLU: y = x for x > 0, y = slope * x otherwise, element-wise, with a learned slope "
          "(one for all elements, or one per channel of the base_axis axis; starts at 0.25).";
  s.inputs = {"x"};
  s.params = {{.name = "base_axis", .type = ParamType::Int, .defaultValue = 1, .min = 1.0,
               .help = "the axis with one slope per index when not shared (1: the first axis after the batch, "
                       "an image's channels)"},
              {.name = "shared", .type = ParamType::Bool, .defaultValue = true,
               .help = "one slope for every element (true) or one per index of base_axis (false)"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    preluGeometry(inputs.at(0), params);  // checks base_axis
    return inputs.at(0);
  };
  s.parameterBlobs = [](const std::vector<Shape>& inputs, const OpParams& params) {
    const PreluGeometry g = preluGeometry(inputs.at(0), params);
    return std::vector<ParamBlob>{{"slope", Shape{g.channels}, Initializer::constant(0.25f)}};
  };
  s.kernels["cpu"] = cpu::makePreluKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "per_channel", .inputs = {{3, 5, 5}}, .params = {{"shared", false}}},
      {.name = "base_axis2", .inputs = {{2, 3, 4}}, .params = {{"shared", false}, {"base_axis", 2}}},
      {.name = "features", .inputs = {{7}}, .params = {{"shared", false}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
