// HardSwish: x · min(max(x + 3, 0), 6) / 6, element-wise (MobileNetV3; nnabla has no HardSwish,
// the name and formula are PyTorch's and ONNX's).
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_hard_swish(OpRegistry& registry) {
  OpSchema s;
  s.name = "HardSwish";
  s.category = "Activation";
  s.doc = "Piecewise approximation of Swish: y = x * min(max(x + 3, 0), 6) / 6, element-wise (MobileNetV3).";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_hardswish, 0.0f, 0.0f);
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "saturated", .inputs = {{6}}, .params = Json::object(), .inputScale = 5.0f},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
