// SELU: scale · x for x > 0, scale · alpha · (exp(x) − 1) otherwise, element-wise (nnabla's SELU).
#include "engine/backend/cpu/body_eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/selu/cuda_math.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_selu(OpRegistry& registry) {
  OpSchema s;
  s.name = "SELU";
  s.category = "Activation";
  s.doc = "Scaled exponential linear unit: y = scale * x for x > 0, y = scale * alpha * (exp(x) - 1) otherwise, "
          "element-wise; the defaults make it self-normalizing (Klambauer et al. 2017).";
  s.inputs = {"x"};
  s.params = {{.name = "scale", .type = ParamType::Float, .defaultValue = 1.05070098735548,
               .help = "the factor lambda applied to both branches"},
              {.name = "alpha", .type = ParamType::Float, .defaultValue = 1.673263242354377,
               .help = "the negative branch approaches -scale * alpha"}};
  s.inferShape = sameShape;
  // The GPU's bodies on the CPU too: oneDNN 2.6 has no SELU.
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    const float scale = static_cast<float>(setup.params.number("scale"));
    const float alpha = static_cast<float>(setup.params.number("alpha"));
    return cpu::makeBodyEltwiseKernel(cuda::body::SeluForward{scale, alpha}, cuda::body::SeluBackward{scale, alpha});
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "scale2_alpha0.5", .inputs = {{6}}, .params = {{"scale", 2.0}, {"alpha", 0.5}}},
      {.name = "wide", .inputs = {{6}}, .params = Json::object(), .inputScale = 3.0f},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
