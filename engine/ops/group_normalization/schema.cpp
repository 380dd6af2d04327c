// GroupNormalization: the channels split into groups, each group of each sample normalized over
// its values, then scaled and shifted per channel (nnabla's GroupNormalization; Note [Row
// normalization]). One group is LayerNormalization with per-channel parameters; C groups are
// InstanceNormalization.
#include "engine/ops/group_normalization/group_norm_shape.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/row_normalization_kernel.h"

namespace netsmith::ops {

void register_group_normalization(OpRegistry& registry) {
  OpSchema s;
  s.name = "GroupNormalization";
  s.category = "Normalization";
  s.doc = "Splits the channels into num_groups groups and normalizes each group of each sample to zero mean and unit "
          "variance (never over the batch), then applies a learned per-channel scale (gamma) and shift (beta).";
  s.inputs = {"x"};
  s.params = {
      {.name = "num_groups", .type = ParamType::Int, .defaultValue = nullptr, .min = 1.0,
       .help = "number of channel groups; it must divide the channel count"},
  };
  for (ParamSpec& p : channelNormParams()) s.params.push_back(std::move(p));
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    groupNormGeometry(inputs.at(0), params);
    return inputs.at(0);
  };
  s.parameterBlobs = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return channelNormBlobs(inputs.at(0), params);
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape&, const OpParams&) { return 2 * numel(inputs.at(0)); };
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    return cpu::makeRowNormalizationKernel(groupNormGeometry(setup.inputShapes.at(0), setup.params));
  };
  // Note [Op examples]: the main case and cases the tests that walk the registry add to it.
  s.examples = {
      {.name = "", .inputs = {{4, 3, 3}}, .params = {{"num_groups", 2}}},
      {.name = "features", .inputs = {{6}}, .params = {{"num_groups", 3}}},
      {.name = "one_group", .inputs = {{3, 4, 4}}, .params = {{"num_groups", 1}, {"eps", 1e-3}}},
      {.name = "per_channel", .inputs = {{3, 2, 5}}, .params = {{"num_groups", 3}}},
      {.name = "no_scale_no_bias", .inputs = {{4, 3, 3}}, .params = {{"num_groups", 2}, {"no_scale", true}, {"no_bias", true}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
