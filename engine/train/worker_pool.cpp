#include "engine/train/worker_pool.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/comm/communicator.h"

namespace netsmith {

struct WorkerPool::Shared {
  std::vector<std::string> names;
  double graceSeconds = 0;
  FailureHook onFailure;

  mutable std::mutex mutex;
  std::condition_variable work;               // workers: a new task or the end
  mutable std::condition_variable done;       // coordinator: a worker finished; test hooks: cancelled
  uint64_t generation = 0;                    // tasks handed out
  const Task* task = nullptr;
  int pending = 0;                            // workers still running the current task
  std::vector<char> busy;                     // per worker
  std::vector<char> reported;                 // per worker: its failure in this task is recorded
  bool quit = false;
  bool failed = false;
  std::string cause;       // the first error that is not a CommError, named by device
  std::string commError;   // the first CommError
  int abandoned = 0;
  std::vector<std::thread> threads;

  void workerLoop(int w) {
    uint64_t seen = 0;
    for (;;) {
      const Task* current = nullptr;
      {
        std::unique_lock lock(mutex);
        work.wait(lock, [&] { return quit || generation != seen; });
        if (quit) return;
        seen = generation;
        current = task;
      }
      reported[static_cast<size_t>(w)] = 0;
      try {
        (*current)(w);
      } catch (...) {
        record(w, std::current_exception());
      }
      {
        std::lock_guard lock(mutex);
        busy[static_cast<size_t>(w)] = 0;
        --pending;
      }
      done.notify_all();
    }
  }

  // Worker w's failure, on its thread, once per task: the failure hook, the pool's error.
  void record(int w, const std::exception_ptr& failure) {
    if (reported[static_cast<size_t>(w)]) return;
    reported[static_cast<size_t>(w)] = 1;
    std::string error;
    std::string reason;
    bool isComm = false;
    try {
      std::rethrow_exception(failure);
    } catch (const CommError& e) {
      error = e.what();
      isComm = true;
    } catch (const std::exception& e) {
      reason = e.what();
    } catch (...) {
      reason = "an unknown exception";
    }
    if (!reason.empty()) {
      error = format("{} failed: {}", names[static_cast<size_t>(w)], reason);
      if (onFailure) onFailure(w, reason);
    }
    {
      std::lock_guard lock(mutex);
      failed = true;
      std::string& slot = isComm ? commError : cause;
      if (slot.empty()) slot = error;
    }
    done.notify_all();
  }

  std::string failureMessage() const { return cause.empty() ? commError : cause; }
};

WorkerPool::WorkerPool(std::vector<std::string> deviceNames, double graceSeconds, FailureHook onFailure)
    : m_shared(std::make_shared<Shared>()) {
  NS_CHECK(!deviceNames.empty(), "a worker pool needs at least one device");
  m_shared->names = std::move(deviceNames);
  m_shared->graceSeconds = graceSeconds;
  m_shared->onFailure = std::move(onFailure);
  m_shared->busy.assign(m_shared->names.size(), 0);
  m_shared->reported.assign(m_shared->names.size(), 0);
  for (size_t w = 0; w < m_shared->names.size(); ++w) {
    // Each thread keeps the shared state alive, so one that is abandoned never touches freed memory.
    m_shared->threads.emplace_back([shared = m_shared, w] { shared->workerLoop(static_cast<int>(w)); });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(m_shared->mutex);
    m_shared->quit = true;
  }
  m_shared->work.notify_all();
  for (size_t w = 0; w < m_shared->threads.size(); ++w) {
    bool busy = false;
    {
      std::lock_guard lock(m_shared->mutex);
      busy = m_shared->busy[w] != 0;
    }
    if (busy) m_shared->threads[w].detach();
    else m_shared->threads[w].join();
  }
}

int WorkerPool::size() const { return static_cast<int>(m_shared->names.size()); }

void WorkerPool::reportFailure(int worker, const std::exception_ptr& failure) { m_shared->record(worker, failure); }

void WorkerPool::runOnAll(const Task& task) {
  Shared& s = *m_shared;
  std::unique_lock lock(s.mutex);
  if (s.failed) throw WorkerFailure(s.failureMessage());
  s.task = &task;
  s.pending = size();
  s.busy.assign(s.busy.size(), 1);
  ++s.generation;
  lock.unlock();
  s.work.notify_all();
  lock.lock();
  s.done.wait(lock, [&] { return s.pending == 0 || s.failed; });
  if (s.pending > 0) {
    // A worker failed; the others leave at their next collective (the communicator is aborted),
    // at the latest when its timeout ends. One that does not is given up.
    const auto grace = std::chrono::duration<double>(s.graceSeconds);
    if (!s.done.wait_for(lock, grace, [&] { return s.pending == 0; })) {
      s.abandoned = s.pending;
      std::string late;
      for (size_t w = 0; w < s.busy.size(); ++w)
        if (s.busy[w]) late += (late.empty() ? "" : ", ") + s.names[w];
      if (s.cause.empty() && s.commError.empty())
        s.cause = format("{} did not finish within {} s after another device failed", late, s.graceSeconds);
    }
  }
  if (s.failed) throw WorkerFailure(s.failureMessage());
}

bool WorkerPool::cancelled() const {
  std::lock_guard lock(m_shared->mutex);
  return m_shared->failed;
}

void WorkerPool::sleepUnlessCancelled(double seconds) const {
  std::unique_lock lock(m_shared->mutex);
  m_shared->done.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return m_shared->failed; });
}

int WorkerPool::abandonedWorkers() const {
  std::lock_guard lock(m_shared->mutex);
  return m_shared->abandoned;
}

}  // namespace netsmith
