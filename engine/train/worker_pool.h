// WorkerPool: one thread per device (DESIGN.md §8). The coordinating thread hands every worker
// the same task (build your replica, train this iteration, evaluate these blocks, ...) and waits
// until all are done; between tasks the workers sleep, so pause and stop need nothing from them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace netsmith {

// A task failed on some worker: the message names the device ("cpu:1 failed: ..." or "cpu:1 did
// not reach the all-reduce within 60 s").
class WorkerFailure : public Error {
 public:
  using Error::Error;
};

class WorkerPool {
 public:
  using Task = std::function<void(int worker)>;
  // Called on the failing worker's thread with its error (the exception's message), before the
  // pool waits for the others:
  // the trainer aborts the worker's communicator there, so the others stop waiting for it.
  using FailureHook = std::function<void(int worker, const std::string& message)>;

  // deviceNames[w] names worker w in errors. A worker that is still busy graceSeconds after
  // another one failed is given up (abandoned) rather than waited for.
  WorkerPool(std::vector<std::string> deviceNames, double graceSeconds, FailureHook onFailure);
  // Ends and joins the threads; abandoned ones are detached (they hold their shared state).
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const;
  // Runs task(w) on every worker w at once; returns when all returned. When some worker throws,
  // waits for the others (up to the grace time), then throws WorkerFailure: the first error
  // that is not a CommError (the cause), or else the first CommError (a late device).
  // After a failure the pool is unusable: every later call throws the same WorkerFailure.
  void runOnAll(const Task& task);

  // On worker `worker`'s thread, inside a task that will rethrow `failure` but must first wait for
  // the others (Note [Worker team loop]): the failure counts now — the hook runs, cancelled()
  // turns true — and only once when the task then throws it.
  void reportFailure(int worker, const std::exception_ptr& failure);

  // True once a worker has failed: code that waits on a worker's thread (a test hook that
  // simulates a stall) gives way.
  bool cancelled() const;
  // Waits up to `seconds` or until cancelled(); for test hooks.
  void sleepUnlessCancelled(double seconds) const;
  // Workers that never returned from a failed task: the process should exit soon after.
  int abandonedWorkers() const;

  struct Shared;

 private:
  std::shared_ptr<Shared> m_shared;
};

}  // namespace netsmith
