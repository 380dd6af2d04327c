// RunControl: pause, resume and stop requests for a running training, from any thread
// (the CLI's stdin reader, a signal, a test). The trainer polls it between iterations, so a
// request takes effect within one iteration.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

namespace netsmith {

class RunControl {
 public:
  void requestStop() {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_changed.notify_all();
  }
  void setPaused(bool paused) {
    {
      std::lock_guard lock(m_mutex);
      m_paused = paused;
    }
    m_changed.notify_all();
  }
  bool stopRequested() const {
    std::lock_guard lock(m_mutex);
    return m_stop || externalStop();
  }
  bool paused() const {
    std::lock_guard lock(m_mutex);
    return m_paused;
  }
  // Blocks while paused; returns true if a stop was requested (before or during the pause).
  bool waitWhilePaused() {
    std::unique_lock lock(m_mutex);
    while (m_paused && !m_stop && !externalStop()) m_changed.wait_for(lock, std::chrono::milliseconds(100));
    return m_stop || externalStop();
  }
  // Applies a control line from the events protocol: "pause", "resume" or "stop".
  // Returns false for anything else.
  bool apply(const std::string& line);

  // Set from a signal handler (SIGINT/SIGTERM): the only state a handler may touch.
  static void noteSignal() { s_signalled.store(true, std::memory_order_relaxed); }

 private:
  static bool externalStop() { return s_signalled.load(std::memory_order_relaxed); }
  static inline std::atomic<bool> s_signalled{false};
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  bool m_stop = false;
  bool m_paused = false;
};

}  // namespace netsmith
