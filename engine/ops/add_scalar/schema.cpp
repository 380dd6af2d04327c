// AddScalar (nnabla's AddScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_add_scalar(OpRegistry& registry) {
  OpSchema s = scalarArithmeticSchema<cuda::body::AddScalarForward, cuda::body::AddScalarBackward>(
      "AddScalar", "Adds a constant: y = x + val.",
      "the constant added");
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "negative", .inputs = {{6}}, .params = {{"val", -0.7}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
