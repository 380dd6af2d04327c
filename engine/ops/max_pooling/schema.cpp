// MaxPooling: the largest value of each window of every channel.
#include <memory>

#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/pooling_rules.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeMaxPoolingKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_max_pooling(OpRegistry& registry) {
  OpSchema s;
  s.name = "MaxPooling";
  s.category = "Pooling";
  s.doc = "Takes the maximum of each kernel-sized window of every channel, moving by stride; "
          "(channels, height, width) in and out.";
  s.inputs = {"x"};
  s.params = poolingParams();
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return poolingGeometry("MaxPooling", inputs.at(0), params).outputShape();
  };
  s.kernels["cpu"] = cpu::makeMaxPoolingKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "ceil_pad", .inputs = {{2, 8, 8}},
       .params = {{"kernel", {3, 3}}, {"stride", {2, 2}}, {"pad", {1, 1}}, {"ignore_border", false}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
