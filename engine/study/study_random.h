// Random numbers of a study that depend only on what they are for: the study's seed, the trial,
// and a draw counter — never on which trials ran first or on the standard library's
// distributions (whose algorithms differ between library versions). So a study resumed after
// kill -9, or run again with the same seed, suggests the same values.
#pragma once

#include <cmath>
#include <cstdint>

namespace netsmith::study {

// splitmix64's finalizer: every input bit moves every output bit.
inline uint64_t mixBits(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class StudyRandom {
 public:
  // `stream` keeps the samplers' draws apart ("random" and "tpe" draws of one trial differ).
  StudyRandom(uint64_t seed, uint64_t trial, uint64_t stream)
      : m_state(mixBits(mixBits(mixBits(seed) ^ trial) ^ (stream * 0xD1B54A32D192ED03ull))) {}

  uint64_t next() { return mixBits(m_state++); }
  // Uniform in [0, 1): the top 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform index in [0, n).
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  // Standard normal (Box-Muller; the second value is dropped to keep draws independent of order).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t m_state;
};

}  // namespace netsmith::study
