// GELU: x · Φ(x), element-wise; by default nnabla's tanh approximation.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_gelu(OpRegistry& registry) {
  OpSchema s;
  s.name = "GELU";
  s.category = "Activation";
  s.doc = "Gaussian error linear unit: y = x * P(X <= x) for a standard normal X, element-wise; by default "
          "nnabla's approximation 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).";
  s.inputs = {"x"};
  // nnabla's GELU is the tanh form; "none" is the exact erf form that PyTorch's GELU defaults to.
  s.params = {{.name = "approximate", .type = ParamType::String, .defaultValue = "tanh", .choices = {"tanh", "none"},
               .help = "\"tanh\": nnabla's tanh approximation; \"none\": the exact x/2 * (1 + erf(x / sqrt(2)))"}};
  s.inferShape = sameShape;
  // oneDNN's gelu_tanh and gelu_erf are these two functions; tst_cuda_kernel_bodies compares the
  // GPU's bodies (gelu/cuda_math.h) with them.
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    const bool tanhForm = setup.params.text("approximate") == "tanh";
    return cpu::makeEltwiseKernel(tanhForm ? dnnl::algorithm::eltwise_gelu_tanh : dnnl::algorithm::eltwise_gelu_erf,
                                  0.0f, 0.0f);
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "erf", .inputs = {{6}}, .params = {{"approximate", "none"}}},
      {.name = "tanh_wide", .inputs = {{6}}, .params = Json::object(), .inputScale = 4.0f},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
