// ReLU6: min(max(x, 0), 6), element-wise.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_relu6(OpRegistry& registry) {
  OpSchema s;
  s.name = "ReLU6";
  s.category = "Activation";
  s.doc = "ReLU capped at 6: y = min(max(x, 0), 6), element-wise.";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  // oneDNN's clip_v2 is min(max(x, alpha), beta); its gradient is dy strictly inside (0, 6).
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_clip_v2, 0.0f, 6.0f);
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "saturated", .inputs = {{6}}, .params = Json::object(), .inputScale = 8.0f},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
