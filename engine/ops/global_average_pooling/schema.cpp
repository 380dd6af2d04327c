// GlobalAveragePooling: the mean of each whole channel, (C, H, W) -> (C, 1, 1) as in nnabla.
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeGlobalAveragePoolingKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_global_average_pooling(OpRegistry& registry) {
  OpSchema s;
  s.name = "GlobalAveragePooling";
  s.category = "Pooling";
  s.doc = "Averages each channel over its whole height and width: (channels, height, width) in, "
          "(channels, 1, 1) out.";
  s.inputs = {"x"};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams&) {
    const Shape& x = inputs.at(0);
    if (x.size() != 3) {
      const char* hint = x.size() < 3 ? "pool before the Affine and Flatten layers"
                                      : "Reshape it to (channels, height, width) first";
      NS_THROW("GlobalAveragePooling expects a (channels, height, width) input, got {}: {}", shapeToString(x), hint);
    }
    return Shape{x[0], 1, 1};
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape&, const OpParams&) {
    return numel(inputs.at(0));
  };
  s.kernels["cpu"] = cpu::makeGlobalAveragePoolingKernel;
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
