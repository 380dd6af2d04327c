// Note [Decode budget]
// Decoding an image takes far more memory than its file: an 8192x8192 16-bit RGBA PNG of 0.5 MB
// decodes into 512 MiB of samples and 192 MiB of 8-bit pixels. With one such image per decoding
// thread, `dataset create` took 1.6 GB for four of them, more with --threads. Each conversion
// first takes its image's worst-case decoding memory (width x height x 11 bytes: 16-bit RGBA
// samples and the 8-bit copy) from one budget shared by the threads, and gives it back when the
// image is converted; an image larger than the whole budget waits for the others and then runs
// alone. Memory then stays near the budget (or one image), whatever the thread count; small
// images (a 12-megapixel photo takes 132 MB at most) still run several at once.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace netsmith {

class DecodeBudget {
 public:
  static constexpr uint64_t kDefaultBytes = uint64_t{512} << 20;
  static constexpr uint64_t kBytesPerPixel = 11;

  explicit DecodeBudget(uint64_t bytes = kDefaultBytes) : m_free(bytes), m_total(bytes) {}

  // Takes the decoding memory of a width x height image (all of the budget at most), waiting
  // until it is free; returns what was taken, for give().
  uint64_t take(int width, int height) {
    // An image whose size is not known takes the whole budget.
    const uint64_t want = width > 0 && height > 0 ? std::min(m_total, uint64_t(width) * uint64_t(height) * kBytesPerPixel)
                                                  : m_total;
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_free >= want; });
    m_free -= want;
    return want;
  }

  void give(uint64_t bytes) {
    {
      std::lock_guard lock(m_mutex);
      m_free += bytes;
    }
    m_changed.notify_all();
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_changed;
  uint64_t m_free;
  const uint64_t m_total;
};

// Holds a DecodeBudget's share for one image while in scope.
class DecodeBudgetShare {
 public:
  DecodeBudgetShare(DecodeBudget& budget, int width, int height) : m_budget(budget), m_bytes(budget.take(width, height)) {}
  ~DecodeBudgetShare() { m_budget.give(m_bytes); }
  DecodeBudgetShare(const DecodeBudgetShare&) = delete;
  DecodeBudgetShare& operator=(const DecodeBudgetShare&) = delete;

 private:
  DecodeBudget& m_budget;
  uint64_t m_bytes;
};

}  // namespace netsmith
