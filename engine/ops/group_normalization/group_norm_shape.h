// GroupNormalization's geometry (nnabla's F.group_normalization with channel_axis 1): the C
// channels of a (C, ...) input are split into num_groups runs of C / num_groups channels, and
// each (sample, group) run is normalized over all of its values; gamma and beta hold one value
// per channel, (C) (nnabla writes them (1, C, 1, 1)).
#pragma once

#include "engine/ops/instance_normalization/instance_norm_shape.h"

namespace netsmith::ops {

inline RowNormGeometry groupNormGeometry(const Shape& x, const OpParams& params) {
  checkChannelNormalization("GroupNormalization", x, params);
  const int64_t groups = params.integer("num_groups");
  NS_CHECK(x[0] % groups == 0,
           "num_groups {} does not divide the {} channels of the input ({}): choose a divisor of {}", groups, x[0],
           shapeToString(x), x[0]);
  RowNormGeometry g;
  g.paramCount = x[0];
  g.paramInner = numel(x) / x[0];
  g.rowLength = (x[0] / groups) * g.paramInner;
  g.scale = !params.flag("no_scale");
  g.bias = !params.flag("no_bias");
  g.eps = static_cast<float>(params.number("eps"));
  return g;
}

}  // namespace netsmith::ops
