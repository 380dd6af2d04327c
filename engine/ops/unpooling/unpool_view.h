// Unpooling's shape rule and views (Note [Index views]): each value of the last len(kernel) axes
// repeated kernel times along them (nnabla's Unpooling). Forward reads the input with stride 0
// across each repeat; backward sums the output gradient over the repeats.
#pragma once

#include <vector>

#include "engine/host_device/index_view_build.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::ops {

inline Shape unpooledShape(const Shape& x, const std::vector<int64_t>& kernel) {
  NS_CHECK(kernel.size() <= x.size(), "kernel ({}) has {} entries but the input ({}) has only {} axes",
           shapeToString(kernel), kernel.size(), shapeToString(x), x.size());
  Shape out = x;
  const size_t first = x.size() - kernel.size();
  for (size_t k = 0; k < kernel.size(); ++k) out[first + k] *= kernel[k];
  return out;
}

// The output seen as (leading axes..., H, kh, W, kw, ...): each repeated axis followed by its repeat.
inline Shape unpoolExpandedShape(const Shape& x, const std::vector<int64_t>& kernel) {
  const size_t first = x.size() - kernel.size();
  Shape expanded(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(first));
  for (size_t k = 0; k < kernel.size(); ++k) {
    expanded.push_back(x[first + k]);
    expanded.push_back(kernel[k]);
  }
  return expanded;
}

inline cuda::IndexView unpoolView(const Shape& x, const std::vector<int64_t>& kernel) {
  const std::vector<int64_t> strides = cuda::rowMajorStrides(x);
  const size_t first = x.size() - kernel.size();
  cuda::IndexView v = cuda::batchView(x);
  for (size_t d = 0; d < first; ++d) cuda::appendDim(v, x[d], strides[d]);
  for (size_t k = 0; k < kernel.size(); ++k) {
    cuda::appendDim(v, x[first + k], strides[first + k]);
    cuda::appendDim(v, kernel[k], 0);
  }
  return v;
}

inline cuda::ReduceView unpoolGradView(const Shape& x, const std::vector<int64_t>& kernel) {
  const Shape expanded = unpoolExpandedShape(x, kernel);
  std::vector<bool> reduced(expanded.size(), false);
  for (size_t k = 0; k < kernel.size(); ++k) reduced[expanded.size() - 1 - 2 * k] = true;
  return cuda::reduceView(expanded, reduced);
}

}  // namespace netsmith::ops
