// NcclGroupState: what every rank of one NcclGroup (nccl_group.h) sees — the NCCL communicators,
// the per-rank call counts and the group's abort — shared by the group (nccl_group.cpp) and its
// ranks (nccl_rank.cpp).
#pragma once

#include <nccl.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace netsmith::cuda {

// The vectors but `names` hold this process's ranks (Note [GPUs across processes]): local index l
// is job rank firstRank + l; `names` holds every rank of the job.
struct NcclGroupState {
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

}  // namespace netsmith::cuda
