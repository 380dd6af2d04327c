// Pad's widths and index view (Note [Index views]). pad_width lists (before, after) pairs for the
// last len/2 per-sample axes, as nnabla's Pad does: (1, 1, 2, 2) on (C, H, W) pads H by 1 and W
// by 2 on both sides. Mode reflect mirrors the input at its first and last entries (numpy's
// "reflect": (1, 2, 3) padded by 2 on each side is (3, 2, 1, 2, 3, 2, 1)).
#pragma once

#include <algorithm>
#include <vector>

#include "engine/host_device/index_view_build.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::ops {

// (before, after) for every per-sample axis, zeros for the axes pad_width does not reach.
inline std::vector<std::pair<int64_t, int64_t>> padWidths(const Shape& x, const OpParams& p) {
  const auto w = p.ints("pad_width");
  NS_CHECK(w.size() % 2 == 0, "pad_width ({}) has {} entries: give (before, after) pairs", shapeToString(w),
           w.size());
  NS_CHECK(w.size() / 2 <= x.size(), "pad_width ({}) pads {} axes but the input ({}) has {}", shapeToString(w),
           w.size() / 2, shapeToString(x), x.size());
  std::vector<std::pair<int64_t, int64_t>> out(x.size(), {0, 0});
  const size_t first = x.size() - w.size() / 2;
  for (size_t k = 0; k < w.size() / 2; ++k) out[first + k] = {w[2 * k], w[2 * k + 1]};
  if (p.text("mode") == "reflect")
    for (size_t d = 0; d < x.size(); ++d)
      NS_CHECK(std::max(out[d].first, out[d].second) < x[d] || (out[d].first == 0 && out[d].second == 0),
               "mode reflect pads axis {} of size {} by ({}, {}): a mirror can add at most {} (size - 1) on each side",
               d, x[d], out[d].first, out[d].second, x[d] - 1);
  return out;
}

inline Shape paddedShape(const Shape& x, const OpParams& p) {
  const auto widths = padWidths(x, p);
  Shape out = x;
  for (size_t d = 0; d < x.size(); ++d) out[d] += widths[d].first + widths[d].second;
  return out;
}

inline cuda::IndexView padView(const Shape& x, const OpParams& p) {
  const auto widths = padWidths(x, p);
  const std::vector<int64_t> strides = cuda::rowMajorStrides(x);
  cuda::IndexView v = cuda::batchView(x);
  for (size_t d = 0; d < x.size(); ++d)
    cuda::appendDim(v, x[d] + widths[d].first + widths[d].second, strides[d], -widths[d].first, 1, x[d]);
  v.reflect = p.text("mode") == "reflect";
  return v;
}

}  // namespace netsmith::ops
