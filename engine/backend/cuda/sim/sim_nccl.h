// SimNccl: NCCL's communicators over simulated GPUs, with the semantics multi-GPU bugs hide in
// (Note [Simulated NCCL] in sim_nccl.cpp).
#pragma once

#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend/cuda/sim/sim_core.h"

namespace netsmith::cuda::sim {

class SimulatedRuntime;
struct Comm;

// The detail of the last failed call of this thread (GpuRuntime::lastErrorDetail).
std::string& threadErrorDetail();

class SimNccl {
 public:
  // initFailure: the CUDA ordinal whose communicators fail to start (-1: none).
  SimNccl(SimulatedRuntime& runtime, bool jitter, uint64_t seed, int initFailure = -1);
  ~SimNccl();
  SimNccl(const SimNccl&) = delete;
  SimNccl& operator=(const SimNccl&) = delete;

  enum class Kind { AllReduce, Broadcast };

  ncclResult_t getUniqueId(ncclUniqueId* id);
  ncclResult_t commInitRank(ncclComm_t* comm, int ranks, const ncclUniqueId& id, int rank, bool blocking,
                            Device& device);
  ncclResult_t groupStart();
  ncclResult_t groupEnd();
  ncclResult_t collective(Kind kind, const float* send, float* recv, size_t count, int root, ncclComm_t comm,
                          Stream& stream);
  ncclResult_t commGetAsyncError(ncclComm_t comm, ncclResult_t* state);
  ncclResult_t commAbort(ncclComm_t comm);
  ncclResult_t commFinalize(ncclComm_t comm);
  ncclResult_t commDestroy(ncclComm_t comm);
  std::string lastError(ncclComm_t comm);
  // Until every deferred operation (the proxy's queue) has run: before a stream goes away.
  void flush();

 private:
  std::shared_ptr<Comm> find(ncclComm_t handle, const char* call);
  ncclResult_t fail(ncclResult_t status, std::string detail);
  void join(const std::shared_ptr<Comm>& comm);
  void announce(const std::vector<std::shared_ptr<Comm>>& members, const std::string& broken);
  void settleAcrossProcesses(const std::shared_ptr<struct Clique>& clique);
  void leaveFolder(Comm& comm);
  void finishWhenIdle(const std::shared_ptr<Comm>& comm);  // ncclCommFinalize's completion
  ncclResult_t issue(const std::shared_ptr<Comm>& comm, std::function<void()> enqueue);
  // The proxy thread: runs `task` after `seconds` (NCCL's own threads finishing an operation).
  void later(double seconds, std::function<void()> task);
  double delay(double low, double high);
  void runProxy();

  SimulatedRuntime& m_runtime;
  bool m_jitter;
  int m_initFailure;
  std::mutex m_mutex;  // live comms, cliques, random
  std::map<void*, std::shared_ptr<Comm>> m_live;
  std::map<std::string, std::shared_ptr<struct Clique>> m_cliques;
  std::mt19937_64 m_random;
  uint64_t m_ids = 0;

  using Clock = std::chrono::steady_clock;
  struct Task {
    Clock::time_point at;
    uint64_t order;
    std::function<void()> run;
    bool operator<(const Task& o) const { return at != o.at ? at > o.at : order > o.order; }
  };
  std::mutex m_proxyMutex;
  std::condition_variable m_proxyChanged;
  std::priority_queue<Task> m_tasks;
  uint64_t m_taskOrder = 0;
  int m_running = 0;
  bool m_stop = false;
  std::thread m_proxy;  // last
};

}  // namespace netsmith::cuda::sim
