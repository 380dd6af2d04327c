// Div2: y = x0 / x1 with numpy broadcasting (binary_arithmetic.h).
#include "engine/ops/binary_arithmetic.h"

namespace netsmith::ops {

void register_div2(OpRegistry& registry) {
  OpSchema s = binaryArithmeticSchema(
      "Div2", cuda::body::BinaryOp::Div,
      "Element-wise quotient of two inputs: y = x0 / x1, with numpy broadcasting (an axis of size 1, or a "
      "missing leading axis, is repeated to the other input's size).");
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
