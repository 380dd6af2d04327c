// BatchNormalization: normalizes each channel by its batch statistics while training and by the
// running statistics at inference, then scales by gamma and shifts by beta (nnabla's semantics).
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeBatchNormalizationKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_batch_normalization(OpRegistry& registry) {
  OpSchema s;
  s.name = "BatchNormalization";
  s.category = "Normalization";
  s.doc = "Normalizes each channel to zero mean and unit variance over the batch (and height and width), "
          "then applies a learned scale (gamma) and shift (beta); inference uses the running mean and variance.";
  s.inputs = {"x"};
  s.usesBatchStatistics = true;
  s.params = {
      {.name = "axes", .type = ParamType::Ints, .defaultValue = Json::array({1}), .min = 0.0,
       .help = "the channel axis, counting the batch axis as Neural Network Console does; only [1] is supported"},
      {.name = "decay_rate", .type = ParamType::Float, .defaultValue = 0.9, .min = 0.0, .max = 1.0,
       .help = "running statistics: running = decay_rate × running + (1 − decay_rate) × batch"},
      {.name = "eps", .type = ParamType::Float, .defaultValue = 1e-5, .min = 0.0,
       .help = "added to the variance before the square root; greater than 0"},
      {.name = "batch_stat", .type = ParamType::Bool, .defaultValue = true,
       .help = "true: training normalizes by batch statistics and updates the running ones; false: the running "
               "statistics are used (and kept) while training too"},
  };
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    const Shape& x = inputs.at(0);
    const auto axes = params.ints("axes");
    NS_CHECK(axes.size() == 1 && axes[0] == 1,
             "axes {} is not supported: BatchNormalization normalizes over the channel axis only; set axes to [1] "
             "(the channel axis, counting the batch axis as axis 0)",
             Json(axes).dump());
    NS_CHECK(params.number("eps") > 0.0, "eps must be greater than 0, got {}: the default is 1e-05",
             params.number("eps"));
    NS_CHECK(!x.empty(),
             "BatchNormalization expects a (channels, ...) input such as (channels, height, width) or (features), "
             "got a scalar");
    return x;
  };
  s.parameterBlobs = [](const std::vector<Shape>& inputs, const OpParams&) {
    const Shape channels{inputs.at(0).at(0)};
    return std::vector<ParamBlob>{
        {.name = "beta", .shape = channels, .init = Initializer::constant(0.0f)},
        {.name = "gamma", .shape = channels, .init = Initializer::constant(1.0f)},
        {.name = "mean", .shape = channels, .init = Initializer::constant(0.0f), .trainable = false},
        {.name = "var", .shape = channels, .init = Initializer::constant(1.0f), .trainable = false},
    };
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape&, const OpParams&) {
    return numel(inputs.at(0));
  };
  s.kernels["cpu"] = cpu::makeBatchNormalizationKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "features", .inputs = {{5}}, .params = Json::object()},
      {.name = "running_stats", .inputs = {{3, 4, 4}}, .params = {{"batch_stat", false}}},
      {.name = "small_eps", .inputs = {{3, 4, 4}}, .params = {{"eps", 1e-7}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
