// PowScalar (nnabla's PowScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_pow_scalar(OpRegistry& registry) {
  registry.add(scalarArithmeticSchema<cuda::body::PowScalarForward, cuda::body::PowScalarBackward>(
      "PowScalar", "Raises to a constant power: y = x ^ val (not a number for x < 0 with a fractional val).", "the exponent"));
}

}  // namespace netsmith::ops
