// HardSigmoid: nnabla's piecewise-linear sigmoid, max(0, min(1, 0.2 · x + 0.5)), element-wise.
#include "engine/backend/cpu/body_eltwise_kernel.h"
#include "engine/ops/hard_sigmoid/cuda_math.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_hard_sigmoid(OpRegistry& registry) {
  OpSchema s;
  s.name = "HardSigmoid";
  s.category = "Activation";
  s.doc = "Piecewise-linear sigmoid: y = 0 for x < -2.5, 1 for x > 2.5, 0.2 * x + 0.5 in between, element-wise.";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  // The GPU's bodies on the CPU too: oneDNN 2.6 has no hard sigmoid.
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeBodyEltwiseKernel(cuda::body::HardSigmoidForward{}, cuda::body::HardSigmoidBackward{});
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "saturated", .inputs = {{6}}, .params = Json::object(), .inputScale = 4.0f},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
