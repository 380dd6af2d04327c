// LayerNormalization's geometry (nnabla's F.layer_normalization / PF.layer_normalization):
// batch_axis lists the axes whose every index keeps its own statistics, counting the batch axis
// as 0 as nnabla does; everything else is normalized together. Netsmith's batch axis is always
// axis 0, so batch_axis is [0] (each sample over all of its axes, the default) or a prefix
// [0, 1, ..., k−1], which normalizes over the trailing per-sample axes only (the (T, D) tokens
// of a sequence with [0, 1]). gamma and beta have the per-sample shape with a 1 for every extra
// batch axis, as nnabla's parameters are the input shape with a 1 for every batch axis.
#pragma once

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"
#include "engine/ops/row_normalization.h"

namespace netsmith::ops {

// Per-sample axes that are batch axes too: batch_axis [0, 1, ..., k−1] gives k − 1. Throws when
// batch_axis is not such a prefix or leaves no axis to normalize.
inline size_t layerNormBatchAxes(const Shape& x, const OpParams& params) {
  const auto axes = params.ints("batch_axis");
  bool prefix = !axes.empty();
  for (size_t a = 0; a < axes.size(); ++a) prefix = prefix && axes[a] == static_cast<int64_t>(a);
  NS_CHECK(prefix,
           "batch_axis {} is not supported: give [0] (each sample normalized over all of its axes) or [0, 1, ..., k] "
           "(counting the batch axis as 0, as nnabla does: each index of axes 1..k keeps its own statistics)",
           Json(axes).dump());
  NS_CHECK(axes.size() <= x.size(),
           "batch_axis {} leaves no axis of the input ({}) to normalize: list fewer axes (at most {})",
           Json(axes).dump(), shapeToString(x), x.size());
  NS_CHECK(params.number("eps") > 0.0, "eps must be greater than 0, got {}: the default is 1e-05", params.number("eps"));
  return axes.size() - 1;
}

// gamma's and beta's shape: the per-sample shape with a 1 for each extra batch axis.
inline Shape layerNormParamShape(const Shape& x, const OpParams& params) {
  Shape s = x;
  const size_t extra = layerNormBatchAxes(x, params);
  for (size_t a = 0; a < extra; ++a) s[a] = 1;
  return s;
}

inline RowNormGeometry layerNormGeometry(const Shape& x, const OpParams& params) {
  RowNormGeometry g;
  g.rowLength = numel(layerNormParamShape(x, params));
  g.paramInner = 1;
  g.paramCount = g.rowLength;
  g.scale = !params.flag("no_scale");
  g.bias = !params.flag("no_bias");
  g.eps = static_cast<float>(params.number("eps"));
  return g;
}

}  // namespace netsmith::ops
