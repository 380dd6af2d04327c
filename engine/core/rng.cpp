#include "engine/core/rng.h"

#include <cmath>

namespace netsmith {

float Rng::normal() {
  float u1 = uniform();
  while (u1 <= 0.0f) u1 = uniform();
  const float u2 = uniform();
  return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.28318530717958647692f * u2);
}

uint64_t Rng::below(uint64_t n) {
  // Lemire's rejection keeps the result unbiased for every n.
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t r = next();
    if (r >= threshold) return r % n;
  }
}

}  // namespace netsmith
