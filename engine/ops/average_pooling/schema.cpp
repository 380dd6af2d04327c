// AveragePooling: the mean of each window of every channel.
#include <memory>

#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/pooling_rules.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeAveragePoolingKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_average_pooling(OpRegistry& registry) {
  OpSchema s;
  s.name = "AveragePooling";
  s.category = "Pooling";
  s.doc = "Takes the mean of each kernel-sized window of every channel, moving by stride; "
          "(channels, height, width) in and out.";
  s.inputs = {"x"};
  s.params = poolingParams();
  s.params.push_back({.name = "including_pad", .type = ParamType::Bool, .defaultValue = true,
                      .help = "true: padding counts as zeros in the mean; false: the mean is over the input "
                              "elements of the window only"});
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return poolingGeometry("AveragePooling", inputs.at(0), params).outputShape();
  };
  s.multiplyAdds = [](const std::vector<Shape>&, const Shape& output, const OpParams& params) {
    const auto kernel = params.ints("kernel");
    return numel(output) * kernel[0] * kernel[1];
  };
  s.kernels["cpu"] = cpu::makeAveragePoolingKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "ceil_pad_excl", .inputs = {{2, 8, 8}},
       .params = {{"kernel", {3, 3}}, {"stride", {2, 2}}, {"pad", {1, 1}}, {"ignore_border", false},
                  {"including_pad", false}}},
      {.name = "overlap", .inputs = {{2, 7, 7}}, .params = {{"kernel", {3, 3}}, {"stride", {1, 1}}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
