// Building the views of index_view.h (Note [Index views]) from per-sample shapes, on the host.
// Every view starts with the batch dimension (size 1 here, set per call by withBatchSize).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/host_device/index_view.h"
#include "engine/core/error.h"
#include "engine/core/shape.h"

namespace netsmith::cuda {

inline std::vector<int64_t> rowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

inline void appendDim(IndexView& v, int64_t dim, int64_t stride, int64_t start = 0, int64_t step = 1,
                      int64_t bound = kUnbounded) {
  NS_CHECK(v.rank < kMaxViewRank, "a layer's index view needs more than {} dimensions (the batch included)",
           kMaxViewRank);
  const int d = v.rank++;
  v.dims[d] = dim;
  v.stride[d] = stride;
  v.start[d] = start;
  v.step[d] = step;
  v.bound[d] = bound;
}

// A view whose first dimension is the batch, reading samples of `inputPerSample` values.
inline IndexView batchView(const Shape& inputPerSample) {
  IndexView v;
  appendDim(v, 1, numel(inputPerSample));
  return v;
}

template <class View>
View withBatchSize(View v, int64_t batch) {
  if constexpr (requires { v.keptDims; }) v.keptDims[0] = batch;
  else v.dims[0] = batch;
  return v;
}

// Reduces `shape` (per sample) over the axes where `reduced` is true; the batch is kept.
inline ReduceView reduceView(const Shape& shape, const std::vector<bool>& reduced) {
  ReduceView v;
  const std::vector<int64_t> strides = rowMajorStrides(shape);
  v.keptRank = 1;
  v.keptDims[0] = 1;
  v.keptStride[0] = numel(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    const bool r = reduced[d];
    NS_CHECK((r ? v.redRank : v.keptRank) < kMaxViewRank, "a reduction over more than {} dimensions", kMaxViewRank);
    if (r) {
      v.redDims[v.redRank] = shape[d];
      v.redStride[v.redRank++] = strides[d];
      v.count *= shape[d];
    } else {
      v.keptDims[v.keptRank] = shape[d];
      v.keptStride[v.keptRank++] = strides[d];
    }
  }
  return v;
}

// `shape` with leading 1s to `rank` axes (numpy's alignment of the trailing axes).
inline Shape padLeading(const Shape& shape, size_t rank) {
  Shape out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

// Numpy broadcasting of two per-sample shapes (trailing axes aligned); throws with both shapes
// when an axis differs and neither size is 1.
inline Shape broadcastShape(const Shape& a, const Shape& b, const char* op) {
  const size_t rank = std::max(a.size(), b.size());
  const Shape pa = padLeading(a, rank), pb = padLeading(b, rank);
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    NS_CHECK(pa[d] == pb[d] || pa[d] == 1 || pb[d] == 1,
             "the inputs have shapes ({}) and ({}), which do not broadcast: {} needs each axis (counted from the "
             "last) to be equal or 1 in one of them",
             shapeToString(a), shapeToString(b), op);
    out[d] = std::max(pa[d], pb[d]);
  }
  return out;
}

inline BroadcastView broadcastView(const Shape& a, const Shape& b, const Shape& out) {
  const Shape pa = padLeading(a, out.size()), pb = padLeading(b, out.size());
  const std::vector<int64_t> sa = rowMajorStrides(pa), sb = rowMajorStrides(pb);
  NS_CHECK(out.size() + 1 <= static_cast<size_t>(kMaxViewRank), "broadcasting over more than {} axes",
           kMaxViewRank - 1);
  BroadcastView v;
  v.rank = static_cast<int>(out.size()) + 1;
  v.dims[0] = 1;
  v.strideA[0] = numel(a);
  v.strideB[0] = numel(b);
  for (size_t d = 0; d < out.size(); ++d) {
    v.dims[d + 1] = out[d];
    v.strideA[d + 1] = pa[d] == 1 ? 0 : sa[d];
    v.strideB[d + 1] = pb[d] == 1 ? 0 : sb[d];
  }
  return v;
}

// The output elements that read each element of an input of shape `input` broadcast to `out`:
// kept dims are the input's own, reduced dims those it is broadcast along; strides in `out`.
inline ReduceView broadcastGradView(const Shape& input, const Shape& out) {
  const Shape p = padLeading(input, out.size());
  std::vector<bool> reduced(out.size());
  for (size_t d = 0; d < out.size(); ++d) reduced[d] = p[d] == 1 && out[d] != 1;
  return reduceView(out, reduced);
}

}  // namespace netsmith::cuda
