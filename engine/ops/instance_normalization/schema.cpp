// InstanceNormalization: each channel of each sample normalized over its own values (an image's
// height and width), then scaled and shifted per channel (nnabla's InstanceNormalization; Note
// [Row normalization]).
#include "engine/ops/instance_normalization/instance_norm_shape.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/row_normalization_kernel.h"

namespace netsmith::ops {

void register_instance_normalization(OpRegistry& registry) {
  OpSchema s;
  s.name = "InstanceNormalization";
  s.category = "Normalization";
  s.doc = "Normalizes each channel of each sample to zero mean and unit variance over the axes after it (an "
          "image's height and width; never over the batch), then applies a learned per-channel scale (gamma) and "
          "shift (beta).";
  s.inputs = {"x"};
  s.params = channelNormParams();
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    instanceNormGeometry(inputs.at(0), params);
    return inputs.at(0);
  };
  s.parameterBlobs = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return channelNormBlobs(inputs.at(0), params);
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape&, const OpParams&) { return 2 * numel(inputs.at(0)); };
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    return cpu::makeRowNormalizationKernel(instanceNormGeometry(setup.inputShapes.at(0), setup.params));
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "sequence", .inputs = {{4, 6}}, .params = {{"eps", 1e-3}}},
      {.name = "no_scale", .inputs = {{2, 4, 4}}, .params = {{"no_scale", true}}},
      {.name = "no_bias", .inputs = {{3, 3, 3}}, .params = {{"no_bias", true}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
