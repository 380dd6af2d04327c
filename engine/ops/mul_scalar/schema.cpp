// MulScalar (nnabla's MulScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_mul_scalar(OpRegistry& registry) {
  registry.add(scalarArithmeticSchema<cuda::body::MulScalarForward, cuda::body::MulScalarBackward>(
      "MulScalar", "Multiplies by a constant: y = x * val.", "the factor"));
}

}  // namespace netsmith::ops
