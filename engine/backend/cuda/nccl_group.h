// NcclGroup: the communicators of N GPU worker threads of one process, one NCCL rank per GPU
// (DESIGN.md §8), implementing engine/comm/communicator.h — or, under mpirun, this process's part
// of one group over the job's GPUs (Note [GPUs across processes]). Built by the CUDA backend's device kind
// (engine/devices/cuda_kind.cpp) when a run trains on cuda:N devices.
//
// Note [NCCL collectives]
// - Buffers are device memory of the rank's GPU (Note [Device memory]); counts as in Communicator.
// - Ordering: a collective is queued on the worker's communication stream after an event on its
//   compute stream, so it reads what every kernel queued before that event wrote (the gradient
//   backward just produced: STYLE.md, llm.c, c10d). A blocking collective (allReduceSum,
//   broadcast, barrier) records the event at the call and returns when the collective has
//   finished. The gradient buckets are queued instead (Note [Queued collectives] in
//   communicator.h): each bucket's event is recorded by the worker's thread as soon as backward
//   has queued its gradients (markQueued), the reducer's thread queues the buckets back to back
//   on the communication stream without waiting, and the worker waits once (finishQueued), before
//   the optimizer, which the compute stream orders after the last bucket. On a real GPU the host
//   queues the whole backward pass long before the device runs it, so an event recorded when the
//   reducer's thread reached a bucket would sit behind all of backward and no bucket but the
//   first would overlap it (issue 25). finishQueued reports the communication stream's time and
//   the part of it after backward, from timed events on the device's clock.
// - Timeouts count the peers only: a rank first waits, without a bound, for its own GPU to reach
//   the collective (its backward pass may be long), then at most timeoutSeconds for the
//   collective.
// - Communicators are non-blocking (ncclConfig_t.blocking = 0), created together with
//   ncclGroupStart / ncclCommInitRankConfig per GPU / ncclGroupEnd — what ncclCommInitAll does,
//   which has no config argument. A rank waits for its collective at most timeoutSeconds, polling
//   the stream and ncclCommGetAsyncError; then, or as soon as any rank calls abort(), it aborts its
//   communicator (ncclCommAbort, which also stops the kernels of the others' collective) and throws
//   CommError naming the late GPU: the rank that has made the fewest collectives (each rank counts
//   its calls in shared state), or the aborting rank with its reason. No hang.
// - Reduction order: in fast mode NCCL's own (its ring or tree, chosen by NCCL for the rank count,
//   buffer size and topology), which from 3 GPUs on is not Note [Reduction tree]'s: fast mode's
//   weights on 4 GPUs differ from 1 GPU's in the last bits, as they do between CPU worker counts.
//   In reproducible mode the ranks' buffers are added in the tree's order (Note [Tree order over
//   NCCL]), so 1, 2, 4 and 8 GPUs give the same weights whatever NCCL chooses.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/comm/communicator.h"

namespace netsmith::cuda {

class CudaDeviceContext;
struct NcclGroupState;

class NcclGroup final : public CommunicatorGroup {
 public:
  // deviceIds: "cuda:N" per rank, distinct GPUs. Creates the NCCL communicators (all ranks, from
  // this thread). Throws Error when there is no driver or NCCL fails to start.
  NcclGroup(const std::vector<std::string>& deviceIds, double timeoutSeconds);
  // This process's part of a group over the GPUs of every process of an mpirun job (Note [GPUs
  // across processes]): placement.localIds become ranks firstRank, firstRank + 1, ...; every
  // process must make its part with the same jobId, from newJobId() on one of them.
  NcclGroup(const JobGroupPlacement& placement, double timeoutSeconds);
  // A new NCCL unique id, in hex, for JobGroupPlacement::jobId.
  static std::string newJobId();
  ~NcclGroup() override;
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  int size() const override;
  Communicator& communicator(int rank) override;
  void endAfterFailure() override;
  // The worker's device: the communicator of `rank` queues on its streams. Call before the rank's
  // first collective, on the worker's thread.
  void attach(int rank, CudaDeviceContext& device);

 private:
  std::shared_ptr<NcclGroupState> m_shared;
  std::vector<std::unique_ptr<Communicator>> m_ranks;
};

}  // namespace netsmith::cuda
