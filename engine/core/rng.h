// Random numbers: a serialisable sequential generator (xoshiro256**) for initialisers and
// shuffling, and counter-based hashing for per-sample streams (Dropout), so that a random value
// depends only on (seed, stream, counter) and never on which thread or device draws it.
#pragma once

#include <array>
#include <cstdint>

namespace netsmith {

// SplitMix64 finaliser: a strong 64-bit mix, used to derive seeds and counter-based values.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform float in [0, 1) from a 64-bit value (24 random bits, exactly representable).
inline float toUnitFloat(uint64_t bits) { return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f); }

// Counter-based uniform in [0, 1): the same (seed, stream, counter) always gives the same value.
inline float counterUniform(uint64_t seed, uint64_t stream, uint64_t counter) {
  return toUnitFloat(mix64(mix64(seed ^ mix64(stream)) + counter));
}

class Rng {
 public:
  using State = std::array<uint64_t, 4>;

  explicit Rng(uint64_t seed = 1) { reseed(seed); }
  void reseed(uint64_t seed) {
    uint64_t x = seed;
    for (auto& s : m_state) s = mix64(x++);
  }
  uint64_t next() {
    const uint64_t result = rotl(m_state[1] * 5, 7) * 9;
    const uint64_t t = m_state[1] << 17;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= t;
    m_state[3] = rotl(m_state[3], 45);
    return result;
  }
  float uniform() { return toUnitFloat(next()); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
  // Standard normal (Box-Muller).
  float normal();
  // Unbiased integer in [0, n).
  uint64_t below(uint64_t n);

  const State& state() const { return m_state; }
  void setState(const State& s) { m_state = s; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  State m_state{};
};

}  // namespace netsmith
