// MulScalar (nnabla's MulScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_mul_scalar(OpRegistry& registry) {
  OpSchema s = scalarArithmeticSchema<cuda::body::MulScalarForward, cuda::body::MulScalarBackward>(
      "MulScalar", "Multiplies by a constant: y = x * val.",
      "the factor");
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "negative", .inputs = {{6}}, .params = {{"val", -2.5}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
