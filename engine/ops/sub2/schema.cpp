// Sub2: y = x0 - x1 with numpy broadcasting (binary_arithmetic.h).
#include "engine/ops/binary_arithmetic.h"

namespace netsmith::ops {

void register_sub2(OpRegistry& registry) {
  OpSchema s = binaryArithmeticSchema(
      "Sub2", cuda::body::BinaryOp::Sub,
      "Element-wise difference of two inputs: y = x0 - x1, with numpy broadcasting (an axis of size 1, or a "
      "missing leading axis, is repeated to the other input's size).");
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "broadcast_channels", .inputs = {{3, 4, 4}, {3, 1, 1}}},
      {.name = "broadcast_rank", .inputs = {{3, 4, 5}, {5}}},
      {.name = "broadcast_both", .inputs = {{3, 1, 5}, {1, 4, 1}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
