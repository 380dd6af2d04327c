// AddScalar (nnabla's AddScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_add_scalar(OpRegistry& registry) {
  registry.add(scalarArithmeticSchema<cuda::body::AddScalarForward, cuda::body::AddScalarBackward>(
      "AddScalar", "Adds a constant: y = x + val.", "the constant added"));
}

}  // namespace netsmith::ops
