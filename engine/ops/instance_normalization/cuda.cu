// InstanceNormalization on the GPU: the shared per-sample normalization kernel (Note [Row
// normalization], engine/ops/row_normalization.cuh) with one row per (sample, channel) plane.
#include "engine/ops/instance_normalization/instance_norm_shape.h"
#include "engine/ops/row_normalization.cuh"

namespace netsmith::cuda {

void register_instance_normalization(OpRegistry& registry) {
  addRowNormalizationKernel(registry, "InstanceNormalization", ops::instanceNormGeometry);
}

}  // namespace netsmith::cuda
