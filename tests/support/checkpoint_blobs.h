// Reading a parameters or checkpoint file's blobs as plain float lists, and comparing them bit for
// bit: what the frozen-layer tests (CPU and simulated GPUs) assert about blobs training left alone.
#pragma once

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/model/checkpoint.h"

namespace netsmith::test {

inline std::map<std::string, std::vector<float>> blobsOf(const std::string& file) {
  std::map<std::string, std::vector<float>> out;
  for (auto& [name, t] : readCheckpoint(file).tensors) out[name] = std::vector<float>(t.data(), t.data() + t.size());
  return out;
}

inline bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// How far `after` moved from `before`, relative to before's size: Σ|before − after| / Σ|before|.
inline double relativeChange(const std::vector<float>& before, const std::vector<float>& after) {
  double moved = 0, size = 0;
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    moved += std::fabs(before[i] - after[i]);
    size += std::fabs(before[i]);
  }
  return moved / size;
}

}  // namespace netsmith::test
