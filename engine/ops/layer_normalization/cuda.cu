// LayerNormalization on the GPU: the shared per-sample normalization kernel (Note [Row
// normalization], engine/ops/row_normalization.cuh) with one row per sample (or per index of the
// extra batch axes).
#include "engine/ops/layer_normalization/layer_norm_shape.h"
#include "engine/ops/row_normalization.cuh"

namespace netsmith::cuda {

void register_layer_normalization(OpRegistry& registry) {
  addRowNormalizationKernel(registry, "LayerNormalization", ops::layerNormGeometry);
}

}  // namespace netsmith::cuda
