// Swish (alias SiLU): x * sigmoid(x), element-wise.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_swish(OpRegistry& registry) {
  OpSchema s;
  s.name = "Swish";
  s.category = "Activation";
  // SiLU (PyTorch's name for this function) is an alias, not a second layer
  // type: one function, one set of kernels, one ONNX mapping (Note [Op aliases]).
  s.aliases = {"SiLU"};
  s.doc = "Swish, also known as SiLU: y = x * sigmoid(x), element-wise. A layer typed SiLU is a Swish.";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  // oneDNN's eltwise_swish is x * sigmoid(alpha * x); nnabla's Swish has alpha = 1.
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
