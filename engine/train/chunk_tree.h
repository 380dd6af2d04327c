// ChunkTree: sums a worker's per-chunk vectors (gradients) in the fixed tree order of Note
// [Reduction tree], holding at most log2(chunks) + 1 partial sums, as in a binary counter.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/core/tensor.h"

namespace netsmith {

class ChunkTree {
 public:
  explicit ChunkTree(int64_t length) : m_length(length) {}

  // The buffer to write the next chunk's vector into; then call push().
  float* next() {
    if (m_depth == m_levels.size()) m_levels.emplace_back(Shape{m_length});
    return m_levels[m_depth].tensor.data();
  }
  // Adds the vector written into next() as the next leaf. Two partial sums of the same number of
  // leaves are merged at once (left + right), so every completed power-of-two block of chunks
  // is summed as a perfect subtree.
  void push() {
    m_levels[m_depth].leaves = 1;
    ++m_depth;
    while (m_depth >= 2 && m_levels[m_depth - 1].leaves == m_levels[m_depth - 2].leaves) {
      add(m_levels[m_depth - 2], m_levels[m_depth - 1]);
      --m_depth;
    }
  }
  // Combines what is left from the right (the last blocks are the smallest), which completes the
  // tree whose splits fall after the largest power of two below each count; copies the total to
  // `out` and starts over.
  void finish(float* out) {
    for (; m_depth >= 2; --m_depth) add(m_levels[m_depth - 2], m_levels[m_depth - 1]);
    if (m_depth == 1) std::memcpy(out, m_levels[0].tensor.data(), static_cast<size_t>(m_length) * sizeof(float));
    else std::memset(out, 0, static_cast<size_t>(m_length) * sizeof(float));
    m_depth = 0;
  }

 private:
  struct Level {
    Tensor tensor;
    int64_t leaves = 0;
    explicit Level(Shape shape) : tensor(shape) {}
  };
  void add(Level& left, const Level& right) {
    float* a = left.tensor.data();
    const float* b = right.tensor.data();
    for (int64_t i = 0; i < m_length; ++i) a[i] += b[i];
    left.leaves += right.leaves;
  }

  int64_t m_length;
  std::vector<Level> m_levels;
  size_t m_depth = 0;
};

}  // namespace netsmith
