// The schema of Mul2, Sub2 and Div2 (one folder each): two inputs combined element-wise with
// numpy broadcasting of their per-sample shapes (trailing axes aligned, size 1 repeated), as
// nnabla's Mul2/Sub2/Div2. Kernels: cpu::BinaryKernel and cuda::CudaBinaryKernel (Note [Index views]).
#pragma once

#include <memory>
#include <string>

#include "engine/backend/cpu/index_view_kernels.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {

inline OpSchema binaryArithmeticSchema(const char* name, cuda::body::BinaryOp op, const char* doc) {
  OpSchema s;
  s.name = name;
  s.category = "Arithmetic";
  s.doc = doc;
  s.inputs = {"x0", "x1"};
  s.inferShape = [name](const std::vector<Shape>& inputs, const OpParams&) {
    return cuda::broadcastShape(inputs.at(0), inputs.at(1), name);
  };
  s.multiplyAdds = [](const std::vector<Shape>&, const Shape& out, const OpParams&) { return numel(out); };
  s.kernels["cpu"] = [op](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<cpu::BinaryKernel>(op, setup.inputShapes.at(0), setup.inputShapes.at(1),
                                                setup.outputShape);
  };
  // Note [Op examples]: the broadcasting cases every two-input arithmetic op adds to the main one.
  s.examples = {
      {.name = "broadcast_channels", .inputs = {{3, 4, 4}, {3, 1, 1}}},
      {.name = "broadcast_rank", .inputs = {{3, 4, 5}, {5}}},
      {.name = "broadcast_both", .inputs = {{3, 1, 5}, {1, 4, 1}}},
  };
  return s;
}

}  // namespace netsmith::ops
