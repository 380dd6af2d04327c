// A small deterministic generator for the fuzz-style tests: the damaged inputs must be the same
// on every run, so a failure can be reproduced.
#pragma once

#include <cstddef>
#include <cstdint>

namespace netsmith::testing {

struct Lcg {
  uint32_t state;
  uint32_t next() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
  size_t below(size_t n) { return n == 0 ? 0 : next() % n; }
};

}  // namespace netsmith::testing
