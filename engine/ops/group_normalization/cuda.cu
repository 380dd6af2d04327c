// GroupNormalization on the GPU: the shared per-sample normalization kernel (Note [Row
// normalization], engine/ops/row_normalization.cuh) with one row per (sample, group).
#include "engine/ops/group_normalization/group_norm_shape.h"
#include "engine/ops/row_normalization.cuh"

namespace netsmith::cuda {

void register_group_normalization(OpRegistry& registry) {
  addRowNormalizationKernel(registry, "GroupNormalization", ops::groupNormGeometry);
}

}  // namespace netsmith::cuda
