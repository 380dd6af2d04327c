// Transpose's shape rule and index view (Note [Index views]), shared by its kernels.
#pragma once

#include <vector>

#include "engine/host_device/index_view_build.h"
#include "engine/core/error.h"

namespace netsmith::ops {

inline Shape transposedShape(const Shape& x, const std::vector<int64_t>& axes) {
  NS_CHECK(axes.size() == x.size(),
           "axes ({}) has {} entries but the input ({}) has {} axes: give a permutation of 0..{}",
           shapeToString(axes), axes.size(), shapeToString(x), x.size(), static_cast<int64_t>(x.size()) - 1);
  std::vector<bool> seen(x.size(), false);
  Shape out;
  for (int64_t a : axes) {
    NS_CHECK(a < static_cast<int64_t>(x.size()) && !seen[a],
             "axes ({}) is not a permutation of 0..{}: each axis must appear once", shapeToString(axes),
             static_cast<int64_t>(x.size()) - 1);
    seen[a] = true;
    out.push_back(x[a]);
  }
  return out;
}

inline cuda::IndexView transposeView(const Shape& x, const std::vector<int64_t>& axes) {
  const std::vector<int64_t> strides = cuda::rowMajorStrides(x);
  cuda::IndexView v = cuda::batchView(x);
  for (int64_t a : axes) cuda::appendDim(v, x[a], strides[a]);
  return v;
}

}  // namespace netsmith::ops
