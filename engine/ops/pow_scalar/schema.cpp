// PowScalar (nnabla's PowScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_pow_scalar(OpRegistry& registry) {
  OpSchema s = scalarArithmeticSchema<cuda::body::PowScalarForward, cuda::body::PowScalarBackward>(
      "PowScalar", "Raises to a constant power: y = x ^ val (not a number for x < 0 with a fractional val).",
      "the exponent");
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "square", .inputs = {{6}}, .params = {{"val", 2.0}}},
      {.name = "cube", .inputs = {{6}}, .params = {{"val", 3.0}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
