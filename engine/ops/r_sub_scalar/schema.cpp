// RSubScalar (nnabla's RSubScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_r_sub_scalar(OpRegistry& registry) {
  registry.add(scalarArithmeticSchema<cuda::body::RSubScalarForward, cuda::body::RSubScalarBackward>(
      "RSubScalar", "Subtracts from a constant: y = val - x.", "the constant x is subtracted from"));
}

}  // namespace netsmith::ops
