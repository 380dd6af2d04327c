#pragma once
// Seconds on the steady clock since a moment: the one helper the trainer's timings share.
#include <chrono>

namespace netsmith {

inline double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace netsmith
