// Slice's ranges (Python's slicing rules) and index view (Note [Index views]).
#pragma once

#include <algorithm>
#include <vector>

#include "engine/host_device/index_view_build.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::ops {

struct SliceRange {
  int64_t start = 0, step = 1, size = 0;  // size: elements taken
};

// One range per per-sample axis; axes past the given lists are taken whole. Negative start and
// stop count from the end of the axis, and both are clamped to it, as Python and nnabla do.
inline std::vector<SliceRange> sliceRanges(const Shape& x, const OpParams& p) {
  const auto start = p.ints("start"), stop = p.ints("stop"), step = p.ints("step");
  NS_CHECK(start.size() == stop.size() && start.size() == step.size(),
           "start, stop and step have {}, {} and {} entries: give one of each per sliced axis", start.size(),
           stop.size(), step.size());
  NS_CHECK(start.size() <= x.size(), "{} axes are sliced but the input ({}) has {} axes", start.size(),
           shapeToString(x), x.size());
  std::vector<SliceRange> ranges;
  for (size_t d = 0; d < x.size(); ++d) {
    if (d >= start.size()) {
      ranges.push_back({0, 1, x[d]});
      continue;
    }
    const auto clampIndex = [&](int64_t i) { return std::clamp(i < 0 ? i + x[d] : i, int64_t{0}, x[d]); };
    const int64_t b = clampIndex(start[d]), e = clampIndex(stop[d]);
    NS_CHECK(e > b, "axis {} of size {} sliced from {} to {} is empty: stop must come after start", d, x[d],
             start[d], stop[d]);
    ranges.push_back({b, step[d], (e - b + step[d] - 1) / step[d]});
  }
  return ranges;
}

inline Shape slicedShape(const Shape& x, const OpParams& p) {
  Shape out;
  for (const SliceRange& r : sliceRanges(x, p)) out.push_back(r.size);
  return out;
}

inline cuda::IndexView sliceView(const Shape& x, const OpParams& p) {
  const std::vector<int64_t> strides = cuda::rowMajorStrides(x);
  const std::vector<SliceRange> ranges = sliceRanges(x, p);
  cuda::IndexView v = cuda::batchView(x);
  for (size_t d = 0; d < x.size(); ++d) cuda::appendDim(v, ranges[d].size, strides[d], ranges[d].start, ranges[d].step, x[d]);
  return v;
}

}  // namespace netsmith::ops
