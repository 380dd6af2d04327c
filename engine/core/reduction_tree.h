// The one order in which Netsmith adds the contributions of several devices (and of a worker's
// chunks in reproducible mode), so that a sum does not depend on timing or on who computes it:
// the in-process communicator, the MPI hierarchy and the simulated GPUs' NCCL all use it.
#pragma once

#include <cstddef>
#include <vector>

namespace netsmith {

// Note [Reduction tree]
// Ranks [lo, hi) are summed as tree(lo, mid) + tree(mid, hi), where mid = lo + the largest power
// of two below hi - lo: 2 ranks give x0 + x1, 3 give (x0 + x1) + x2, 4 give (x0 + x1) + (x2 + x3),
// 6 give ((x0 + x1) + (x2 + x3)) + (x4 + x5). The same rule orders the per-chunk sums inside a
// worker in reproducible mode (Note [Reproducible training]): when every rank holds the same
// power-of-two number of consecutive chunks, each rank's chunks form one subtree of the tree over
// all chunks, and this tree over the ranks completes it, so the logical batch's gradient is
// added in the same order whatever the number of devices.

// The rank where the tree splits ranks [lo, hi) (hi - lo >= 2).
inline int reductionTreeSplit(int lo, int hi) {
  int half = 1;
  while (half * 2 < hi - lo) half *= 2;
  return lo + half;
}

// out = parts[lo] + ... + parts[hi - 1], added in the tree's order; the parts have one size.
inline void treeSum(const std::vector<std::vector<float>>& parts, int lo, int hi, std::vector<float>& out) {
  if (hi - lo == 1) {
    out = parts[static_cast<size_t>(lo)];
    return;
  }
  const int mid = reductionTreeSplit(lo, hi);
  std::vector<float> right;
  treeSum(parts, lo, mid, out);
  treeSum(parts, mid, hi, right);
  for (size_t i = 0; i < out.size(); ++i) out[i] += right[i];
}

}  // namespace netsmith
