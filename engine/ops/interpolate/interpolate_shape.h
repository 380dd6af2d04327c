// Interpolate's parameters read once: the output size of the last two axes and the two axes'
// coordinate rules (cuda_math.h, Note [Interpolate coordinates]).
#pragma once

#include <cmath>

#include "engine/core/error.h"
#include "engine/ops/interpolate/cuda_math.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::ops {

struct InterpolateGeometry {
  int64_t planes = 1;  // values per sample before the last two axes
  cuda::interp::Axis h, w;
};

inline Shape interpolatedShape(const Shape& x, const OpParams& p) {
  NS_CHECK(x.size() >= 2, "the input ({}) has {} axes: Interpolate resizes the last two (height, width)",
           shapeToString(x), x.size());
  const bool nearest = p.text("mode") == "nearest";
  NS_CHECK(!(nearest && p.flag("align_corners")),
           "align_corners is true, which mode nearest does not support (as in nnabla): set it to false");
  const auto size = p.ints("output_size");
  NS_CHECK(size.size() == 2, "output_size ({}) must have 2 entries (height, width), or be 0,0 to use scale",
           shapeToString(size));
  Shape out = x;
  const size_t h = x.size() - 2;
  for (size_t k = 0; k < 2; ++k) {
    const int64_t fromScale = static_cast<int64_t>(std::floor(static_cast<double>(x[h + k]) * p.number("scale")));
    out[h + k] = size[k] > 0 ? size[k] : fromScale;
    NS_CHECK(out[h + k] >= 1, "the output would have {} values along axis {}: raise scale or give output_size",
             out[h + k], h + k);
  }
  NS_CHECK((size[0] > 0) == (size[1] > 0), "output_size ({}) gives one size but not the other: give both, or 0,0",
           shapeToString(size));
  return out;
}

inline InterpolateGeometry interpolateGeometry(const Shape& x, const OpParams& p) {
  const Shape out = interpolatedShape(x, p);
  const size_t h = x.size() - 2;
  const bool linear = p.text("mode") == "linear";
  const bool corners = p.flag("align_corners"), half = p.flag("half_pixel");
  InterpolateGeometry g;
  for (size_t d = 0; d < h; ++d) g.planes *= x[d];
  g.h = cuda::interp::makeAxis(x[h], out[h], linear, corners, half);
  g.w = cuda::interp::makeAxis(x[h + 1], out[h + 1], linear, corners, half);
  return g;
}

}  // namespace netsmith::ops
