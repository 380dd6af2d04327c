// ReLU: max(x, 0), element-wise.
#include "engine/backend/cpu/eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_relu(OpRegistry& registry) {
  OpSchema s;
  s.name = "ReLU";
  s.category = "Activation";
  s.doc = "Rectified linear unit: y = max(x, 0), element-wise.";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  s.foldsIntoProducer = true;
  // The backward reads the output (y > 0 exactly where x > 0), so the layer before may write y
  // directly: Note [Fused ReLU].
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeEltwiseKernel(dnnl::algorithm::eltwise_relu_use_dst_for_bwd, 0.0f, 0.0f);
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
