// LayerNormalization: each sample normalized to zero mean and unit variance over its own values,
// then scaled by gamma and shifted by beta element by element (nnabla's LayerNormalization; Note
// [Row normalization]).
#include "engine/ops/layer_normalization/layer_norm_shape.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/row_normalization_kernel.h"

namespace netsmith::ops {

void register_layer_normalization(OpRegistry& registry) {
  OpSchema s;
  s.name = "LayerNormalization";
  s.category = "Normalization";
  s.doc = "Normalizes each sample to zero mean and unit variance over all of its values (not over the batch), "
          "then applies a learned scale (gamma) and shift (beta) of the sample's shape.";
  s.inputs = {"x"};
  s.params = {
      {.name = "batch_axis", .type = ParamType::Ints, .defaultValue = Json::array({0}), .min = 0.0,
       .help = "axes whose every index keeps its own statistics, counting the batch axis as 0 as Neural Network "
               "Console does: [0] normalizes each sample over all its axes, [0, 1] each index of the first axis "
               "over the rest"},
      {.name = "eps", .type = ParamType::Float, .defaultValue = 1e-5, .min = 0.0,
       .help = "added to the variance before the square root; greater than 0"},
      {.name = "no_scale", .type = ParamType::Bool, .defaultValue = false, .help = "true: no gamma (scale 1)"},
      {.name = "no_bias", .type = ParamType::Bool, .defaultValue = false, .help = "true: no beta (shift 0)"},
  };
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    const Shape& x = inputs.at(0);
    NS_CHECK(!x.empty(), "LayerNormalization expects a per-sample input such as (features) or (C, H, W), got a scalar");
    layerNormBatchAxes(x, params);
    return x;
  };
  s.parameterBlobs = [](const std::vector<Shape>& inputs, const OpParams& params) {
    const Shape shape = layerNormParamShape(inputs.at(0), params);
    std::vector<ParamBlob> blobs;
    if (!params.flag("no_bias")) blobs.push_back({.name = "beta", .shape = shape, .init = Initializer::constant(0.0f)});
    if (!params.flag("no_scale")) blobs.push_back({.name = "gamma", .shape = shape, .init = Initializer::constant(1.0f)});
    return blobs;
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape&, const OpParams&) { return 2 * numel(inputs.at(0)); };
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    return cpu::makeRowNormalizationKernel(layerNormGeometry(setup.inputShapes.at(0), setup.params));
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "features", .inputs = {{7}}, .params = Json::object()},
      {.name = "per_token", .inputs = {{3, 6}}, .params = {{"batch_axis", {0, 1}}}},
      {.name = "per_row", .inputs = {{2, 3, 4}}, .params = {{"batch_axis", {0, 1, 2}}, {"eps", 1e-3}}},
      {.name = "no_scale_no_bias", .inputs = {{3, 4, 4}}, .params = {{"no_scale", true}, {"no_bias", true}}},
      {.name = "no_bias", .inputs = {{2, 3, 3}}, .params = {{"no_bias", true}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
