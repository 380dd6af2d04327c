// Transpose: permutes the axes of each sample (nnabla's Transpose; axes counted per sample, as
// Neural Network Console shows them: nnabla's axes are these + 1 after a leading 0).
#include <algorithm>
#include <memory>

#include "engine/backend/cpu/index_view_kernels.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/transpose/transpose_view.h"

namespace netsmith::ops {

void register_transpose(OpRegistry& registry) {
  OpSchema s;
  s.name = "Transpose";
  s.category = "Shape";
  s.doc = "Permutes the axes of each sample: output axis i is input axis axes[i] (e.g. 1,2,0 turns "
          "(channels, height, width) into (height, width, channels)).";
  s.inputs = {"x"};
  s.params = {{.name = "axes", .type = ParamType::Ints, .defaultValue = Json::array({0, 2, 1}), .min = 0.0,
               .help = "a permutation of the per-sample axes 0..rank-1, not counting the batch axis"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return transposedShape(inputs.at(0), params.ints("axes"));
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<cpu::GatherKernel>(transposeView(setup.inputShapes.at(0), setup.params.ints("axes")), 0.0f);
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "hwc", .inputs = {{3, 4, 5}}, .params = {{"axes", {1, 2, 0}}}},
      {.name = "rank2", .inputs = {{4, 6}}, .params = {{"axes", {1, 0}}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
