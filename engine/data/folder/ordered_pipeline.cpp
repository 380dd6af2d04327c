// runOrdered (Note [Ordered pipeline]).
#include "engine/data/folder/ordered_pipeline.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace netsmith {

void runOrdered(int64_t n, int threads, int64_t window, const std::function<void(int64_t, size_t)>& work,
                const std::function<void(int64_t, size_t)>& done, const std::function<void()>& poll) {
  if (n <= 0) return;
  std::mutex mutex;
  std::condition_variable toWorkers, toMain;
  int64_t next = 0, consumed = 0;
  bool stop = false;
  std::vector<char> finished(static_cast<size_t>(n), 0);
  auto worker = [&] {
    for (;;) {
      int64_t i;
      {
        std::unique_lock lock(mutex);
        toWorkers.wait(lock, [&] { return stop || next >= n || next < consumed + window; });
        if (stop || next >= n) return;
        i = next++;
      }
      work(i, static_cast<size_t>(i % window));
      {
        std::lock_guard lock(mutex);
        finished[static_cast<size_t>(i)] = 1;
      }
      toMain.notify_one();
    }
  };
  std::vector<std::thread> pool;
  auto finish = [&] {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    toWorkers.notify_all();
    for (auto& t : pool) t.join();
    pool.clear();
  };
  try {
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    while (consumed < n) {
      {
        std::unique_lock lock(mutex);
        toMain.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished[static_cast<size_t>(consumed)] != 0; });
      }
      poll();
      for (;;) {
        {
          std::lock_guard lock(mutex);
          if (consumed >= n || !finished[static_cast<size_t>(consumed)]) break;
        }
        done(consumed, static_cast<size_t>(consumed % window));
        {
          std::lock_guard lock(mutex);
          ++consumed;
        }
        toWorkers.notify_all();
      }
    }
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

int defaultThreadCount() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace netsmith
