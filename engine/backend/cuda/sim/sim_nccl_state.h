// The state of simulated NCCL's communicators (Note [Simulated NCCL] in sim_nccl.cpp), shared by
// its two files: sim_nccl.cpp makes and ends communicators, sim_nccl_rounds.cpp runs collectives.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backend/cuda/sim/sim_nccl.h"
#include "engine/backend/cuda/sim/sim_nccl_folder.h"
#include "engine/core/error.h"

namespace netsmith::cuda::sim {

struct Round {
  int arrived = 0;
  int left = 0;
  std::vector<std::vector<float>> data;
  std::vector<int> kind;
  std::vector<size_t> count;
  std::vector<int> root;
  std::vector<std::string> failure;
};

struct Clique {
  int ranks = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::shared_ptr<Comm>> members;
  int joined = 0;
  std::string broken;  // why the communicator cannot work (two ranks on one GPU)
  std::map<uint64_t, Round> rounds;
  // Ranks in other processes: set (once every rank has joined the folder) before any member is
  // ready, read-only after. Rounds then go through the folder.
  std::string key;
  std::shared_ptr<CliqueFolder> folder;
  std::vector<char> inFolder;  // by rank: this process has written the rank's membership
  bool acrossProcesses = false;
  bool settled = false;  // ready (or broken) in memory or across processes; guarded by mutex
};

struct Comm {
  std::shared_ptr<Clique> clique;
  std::string key;
  int rank = 0;
  int ranks = 0;
  Device* device = nullptr;
  bool blocking = true;
  std::atomic<ncclResult_t> state{ncclInProgress};
  std::atomic<ncclResult_t> asyncError{ncclSuccess};
  std::atomic<bool> aborted{false};
  std::atomic<int> pending{0};  // collectives queued and not yet finished
  uint64_t issued = 0;          // collectives queued on streams; the caller's thread only
  bool connected = false;
  std::mutex errorMutex;
  std::string error;
  std::string name() const { return format("NCCL rank {} of {} on cuda:{}", rank, ranks, device->ordinal); }
  void setAsyncError(ncclResult_t status, const std::string& why) {
    {
      std::lock_guard lock(errorMutex);
      if (error.empty()) error = why;
    }
    ncclResult_t expected = ncclSuccess;
    asyncError.compare_exchange_strong(expected, status);
  }
};

const char* kindName(SimNccl::Kind kind);

// One rank's part of collective #seq, on its stream's thread: put its input in, wait for every
// rank (or this rank's abort), check they agree, write its own result.
void runRound(Comm& comm, SimNccl::Kind kind, const float* send, float* recv, size_t count, int root, uint64_t seq,
              Stream& stream, const std::string& what);

}  // namespace netsmith::cuda::sim
