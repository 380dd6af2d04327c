// ChannelShuffle's shape check and index view (Note [Index views]): along `axis` the C entries are
// seen as (group, C / group) and read back as (C / group, group), so output entry i·group + j is
// input entry j·(C / group) + i (nnabla's ChannelShuffle, ShuffleNet's channel shuffle).
#pragma once

#include "engine/host_device/index_view_build.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::ops {

inline void checkShuffle(const Shape& x, const OpParams& p) {
  const int64_t axis = p.integer("axis"), group = p.integer("group");
  NS_CHECK(axis < static_cast<int64_t>(x.size()), "axis {} does not exist in the input ({}), which has {} axes",
           axis, shapeToString(x), x.size());
  NS_CHECK(x[axis] % group == 0, "axis {} has {} entries, which do not split into {} groups: choose a group that "
           "divides {}", axis, x[axis], group, x[axis]);
}

inline cuda::IndexView shuffleView(const Shape& x, const OpParams& p) {
  const int64_t axis = p.integer("axis"), group = p.integer("group");
  const std::vector<int64_t> strides = cuda::rowMajorStrides(x);
  cuda::IndexView v = cuda::batchView(x);
  for (int64_t d = 0; d < axis; ++d) cuda::appendDim(v, x[d], strides[d]);
  const int64_t perGroup = x[axis] / group, inner = strides[axis];
  cuda::appendDim(v, perGroup, inner);
  cuda::appendDim(v, group, perGroup * inner);
  cuda::appendDim(v, inner, 1);
  return v;
}

}  // namespace netsmith::ops
