// Flatten: (...) -> (product of the axes), per sample.
#include <memory>

#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeCopyKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_flatten(OpRegistry& registry) {
  OpSchema s;
  s.name = "Flatten";
  s.category = "Shape";
  s.doc = "Turns each sample into a vector: (C,H,W) becomes (C*H*W); the values keep their row-major order.";
  s.inputs = {"x"};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams&) { return Shape{numel(inputs.at(0))}; };
  s.kernels["cpu"] = cpu::makeCopyKernel;
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
