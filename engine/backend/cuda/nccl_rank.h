// The parts of NcclGroup (nccl_communicator.h) its two files share: the state every rank of the
// group sees (NcclGroup::Shared), and one rank's Communicator, made and attached through these
// functions. nccl_group.cpp starts and ends the group (NCCL's communicators); nccl_communicator.cpp
// is one rank's collectives.
#pragma once

#include <nccl.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backend/cuda/nccl_communicator.h"

namespace netsmith::cuda {

// The vectors but `names` hold this process's ranks (Note [GPUs across processes]): local index l
// is job rank firstRank + l; `names` holds every rank of the job.
struct NcclGroup::Shared {
  std::vector<std::string> names;
  int firstRank = 0;
  std::vector<int> ordinals;
  double timeoutSeconds = 60;
  std::vector<ncclComm_t> comms;
  std::unique_ptr<std::atomic<int64_t>[]> calls;  // collectives started, per rank
  std::mutex mutex;
  std::atomic<bool> aborted{false};
  std::string abortMessage;  // guarded by mutex; the first reason wins
  int culprit = -1;

  int localCount() const { return static_cast<int>(ordinals.size()); }

  void abortWith(const std::string& message, int rank) {
    std::lock_guard lock(mutex);
    if (aborted.load()) return;
    abortMessage = message;
    culprit = rank;
    aborted.store(true);
  }
};

// This process's rank number `local` of the group: Note [NCCL collectives].
std::unique_ptr<Communicator> makeNcclRank(std::shared_ptr<NcclGroup::Shared> shared, int local);
// The worker's device for a rank made by makeNcclRank (its first collective, a warm-up, runs here).
void attachNcclRank(Communicator& rank, CudaDeviceContext& device);

}  // namespace netsmith::cuda
