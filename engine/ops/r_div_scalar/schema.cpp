// RDivScalar (nnabla's RDivScalar): scalar_arithmetic.h with the bodies of scalar_bodies.h.
#include "engine/ops/scalar_arithmetic.h"

namespace netsmith::ops {

void register_r_div_scalar(OpRegistry& registry) {
  registry.add(scalarArithmeticSchema<cuda::body::RDivScalarForward, cuda::body::RDivScalarBackward>(
      "RDivScalar", "Divides a constant: y = val / x.", "the dividend"));
}

}  // namespace netsmith::ops
