// Helpers shared by the unit tests: random tensors, bitwise comparison, error text of a call.
#pragma once

#include <QString>
#include <cstring>
#include <functional>

#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/core/tensor.h"

namespace netsmith::test {

inline Tensor randomTensor(Shape shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(std::move(shape));
  Rng rng(seed);
  for (int64_t i = 0; i < t.size(); ++i) t[i] = rng.uniform(lo, hi);
  return t;
}

inline bool bitwiseEqual(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && (a.empty() || std::memcmp(a.data(), b.data(), size_t(a.size()) * sizeof(float)) == 0);
}

// The message of the netsmith::Error that f throws; empty when it throws none.
inline QString errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return QString();
}

}  // namespace netsmith::test
