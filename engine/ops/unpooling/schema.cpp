// Unpooling: repeats each value kernel times along the last axes (nnabla's Unpooling, the inverse
// of pooling's downsampling for decoders).
#include <memory>

#include "engine/backend/cpu/index_view_kernels.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/unpooling/unpool_view.h"

namespace netsmith::ops {

void register_unpooling(OpRegistry& registry) {
  OpSchema s;
  s.name = "Unpooling";
  s.category = "Pooling";
  s.doc = "Upsamples by repeating each value kernel times along the last axes: (C, H, W) with kernel 2,2 "
          "becomes (C, 2H, 2W), each value filling a 2x2 block.";
  s.inputs = {"x"};
  s.params = {{.name = "kernel", .type = ParamType::Ints, .defaultValue = Json::array({2, 2}), .min = 1.0,
               .help = "repeats along each of the last len(kernel) axes (height, width)"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return unpooledShape(inputs.at(0), params.ints("kernel"));
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    const Shape& x = setup.inputShapes.at(0);
    const auto kernel = setup.params.ints("kernel");
    return std::make_unique<cpu::GatherKernel>(unpoolView(x, kernel), 0.0f, unpoolGradView(x, kernel));
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "kernel3x2", .inputs = {{2, 3, 4}}, .params = {{"kernel", {3, 2}}}},
      {.name = "one_axis", .inputs = {{3, 5}}, .params = {{"kernel", {2}}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
