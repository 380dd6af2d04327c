// Identity: y = x (nnabla's Identity; a named pass-through, e.g. where an imported graph had one).
#include <memory>

#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeCopyKernel(const KernelSetup& setup);  // engine/ops/flatten/cpu.cpp
}

namespace netsmith::ops {

void register_identity(OpRegistry& registry) {
  OpSchema s;
  s.name = "Identity";
  s.category = "Basic";
  s.doc = "Passes its input on unchanged: y = x.";
  s.inputs = {"x"};
  s.inferShape = sameShape;
  s.kernels["cpu"] = cpu::makeCopyKernel;
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
