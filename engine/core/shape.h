// Shape: the extent of each axis of a tensor, outermost first (row-major, NCHW for images).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace netsmith {

using Shape = std::vector<int64_t>;

inline int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
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
