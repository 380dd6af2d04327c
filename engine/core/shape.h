// Shape: the extent of each axis of a tensor, outermost first (row-major, NCHW for images).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace netsmith {

using Shape = std::vector<int64_t>;

// Number of elements; throws when the product does not fit (a shape from a hostile file).
inline int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) NS_THROW("a shape with more than 2^63 elements is not supported");
  return n;
}

// "16,28,28" as Neural Network Console writes shapes.
inline std::string shapeToString(const Shape& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s;
}

// The full shape of a batch: batch size in front of a per-sample shape.
inline Shape withBatch(int64_t batch, const Shape& sample) {
  Shape s;
  s.reserve(sample.size() + 1);
  s.push_back(batch);
  s.insert(s.end(), sample.begin(), sample.end());
  return s;
}

}  // namespace netsmith
