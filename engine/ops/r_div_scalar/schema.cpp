// RDivScalar (nnabla's RDivScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_r_div_scalar(OpRegistry& registry) {
  OpSchema s = scalarArithmeticSchema<cuda::body::RDivScalarForward, cuda::body::RDivScalarBackward>(
      "RDivScalar", "Divides a constant: y = val / x.",
      "the dividend");
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "negative", .inputs = {{6}}, .params = {{"val", -2.0}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
