// RSubScalar (nnabla's RSubScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_r_sub_scalar(OpRegistry& registry) {
  OpSchema s = scalarArithmeticSchema<cuda::body::RSubScalarForward, cuda::body::RSubScalarBackward>(
      "RSubScalar", "Subtracts from a constant: y = val - x.",
      "the constant x is subtracted from");
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "val3", .inputs = {{6}}, .params = {{"val", 3.0}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
