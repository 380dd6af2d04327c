// Communicator: the collectives of data-parallel training (all-reduce, broadcast, barrier), one
// rank per device (DESIGN.md §8), and InProcessGroup, its shared-memory implementation for N
// worker threads of one process (CPU workers). NCCL and MPI communicators implement the same
// interface later.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/reduction_tree.h"  // Note [Reduction tree]

namespace netsmith {

// A collective that cannot complete: a rank did not arrive within the timeout, or a rank called
// abort(). The message names the device and says why ("cpu:1 did not reach the all-reduce within
// 60 s"; "cpu:1 failed: out of memory"). culpritRank() is that rank, or -1 when there is none.
class CommError : public Error {
 public:
  CommError(const std::string& message, int culpritRank) : Error(message), m_culpritRank(culpritRank) {}
  int culpritRank() const { return m_culpritRank; }

 private:
  int m_culpritRank;
};

// One buffer of a fused all-reduce (allReduceSumPieces): `count` floats at `data`.
struct ReducePiece {
  float* data = nullptr;
  int64_t count = 0;
};

// What finishQueued() measured on the device's clock (Note [Queued collectives]).
struct QueuedTiming {
  double commSeconds = 0;      // the communication stream at work on the collectives
  double unhiddenSeconds = 0;  // of it, after the last marked work had finished (not behind compute)
};

// Note [Queued collectives]
// A communicator of device memory (NCCL) queues its collectives on a stream, as the device
// computes: the host is ahead of the device. For the gradient buckets (BucketReducer) it offers
// three calls instead of a blocking all-reduce each, so that every bucket waits on the device for
// its own gradients only, the buckets follow one another on the communication stream without the
// host waiting in between, and the host waits once, where the optimizer needs the sums:
//   markQueued(tag)       the worker's thread, as soon as backward has queued the gradients of
//                         bucket `tag`: the point on the compute stream the collective waits for;
//   queueAllReduceSumPieces(pieces, flat, tag)
//                         the reducer's thread: allReduceSumPieces queued behind mark `tag`,
//                         returning before it has run;
//   finishQueued()        the worker's thread, once all are queued: returns when they have
//                         completed, with their timing, and orders the compute stream after them.
//   orderAfterQueued()    optional, the worker's thread, once all are queued: orders the compute
//                         stream after them without waiting, so that work that needs the sums
//                         (the optimizer) is queued before the host waits in finishQueued().
// A host communicator computes at once: the defaults make queueAllReduceSumPieces the blocking
// call and the other two nothing.

// One rank's handle. Collectives must be made by all ranks, in the same order, with the same
// count (and root), each rank from one thread at a time (Note [Bucket order]); a mismatch of kind
// or count is detected and thrown as CommError on every rank. All calls may throw CommError.
// Buffers are host memory for this implementation; they are not touched after a call returns.
class Communicator {
 public:
  virtual ~Communicator();
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The device id of a rank ("cpu:1"), as used in error messages.
  virtual const std::string& deviceName(int rank) const = 0;

  // In place: data[i] = sum over ranks of rank r's data[i], added in the fixed tree order of
  // Note [Reduction tree]. The result is bitwise identical on every rank and independent of timing.
  virtual void allReduceSum(float* data, int64_t count) = 0;
  // Several buffers summed as one all-reduce (a gradient bucket: Note [Bucket order]): the pieces
  // are copied into `flat` one after another, flat (the pieces' total count) is all-reduced as by
  // allReduceSum, and the sums are copied back into the pieces. This default copies on the host
  // (host buffers); a communicator of device memory copies on the device, in order with its
  // collective (NCCL: Note [NCCL collectives]).
  virtual void allReduceSumPieces(std::span<const ReducePiece> pieces, float* flat);
  // Reproducible mode (Note [Reproducible training]): from now on every sum adds the ranks'
  // buffers in Note [Reduction tree]'s order, whatever the transport's own order (NCCL's ring:
  // Note [Tree order over NCCL]). Host communicators add in that order always; call it on every
  // rank before its first collective.
  virtual void requireTreeOrder() {}
  // Note [Queued collectives].
  virtual bool queuesCollectives() const { return false; }
  virtual void markQueued(int /*tag*/) {}
  virtual void queueAllReduceSumPieces(std::span<const ReducePiece> pieces, float* flat, int /*tag*/) {
    allReduceSumPieces(pieces, flat);
  }
  virtual QueuedTiming finishQueued() { return {}; }
  virtual void orderAfterQueued() {}
  // In place: every rank's data becomes root's data.
  virtual void broadcast(float* data, int64_t count, int root) = 0;
  virtual void barrier() = 0;
  // Makes every current and future collective on every rank throw CommError("<this rank's device>
  // failed: <reason>") promptly. Any thread may call it, at any time; the first reason given to
  // the group (by abort() or a timeout) is the one every rank reports. A worker that failed calls
  // this so that the others stop instead of waiting for it.
  virtual void abort(const std::string& reason) = 0;
};

// Note [In-process all-reduce]
// N worker threads share memory, so the all-reduce works on the ranks' buffers directly:
//   1. each rank publishes (buffer, count, kind) in its slot; round A (a barrier);
//   2. rank r owns chunk r: it sums chunk r of all N buffers in the fixed order of Note
//      [Reduction tree] and writes the sums into chunk r of every buffer; round B.
// Step 2 is a reduce-scatter and an all-gather fused block by block (the owner pushes each block
// of sums, still in L1, to every rank, instead of every rank pulling the chunk after another
// round): every element of every buffer is read once and written once, by its chunk's owner.
// Pulling measured 1.4-1.7x slower with 2 ranks on the development machine.
// Chunks are ceil(count / N) rounded up to 16 floats (a 64-byte cache line), so two ranks never
// write the same cache line, and every rank reduces 1/N of the data: large gradients are reduced
// by all workers in parallel, with no lock held while data moves. The sum of every element is
// ((x0 + x1) + x2) + ..., computed once and copied, hence bitwise identical on all ranks and on
// every run. (It differs between 2 and 4 ranks; the reproducible mode of DESIGN.md §6 fixes the
// order of per-chunk sums above this level.) A broadcast is round A, every rank copying from
// the root, then round B; a barrier is round A alone.
//
// The last rank to reach round A compares the published (kind, count, root). Every collective
// starts with such a round, so ranks that diverge are stopped there, before any buffer is
// touched, and all of them throw the same CommError.
//
// Round A is also where a late rank is noticed: a rank waits there at most timeoutSeconds, and
// gives way at once to abort(). A timeout aborts the group, so the late rank throws when it
// finally arrives instead of waiting for ranks that have given up. Once A is passed, ranks read
// and write each other's buffers until B, so B is waited out in full whatever happens (a rank
// that left early could free or reuse its buffer while another still uses it); between A and B
// a rank runs only bounded code that cannot throw, so B always completes. Waiting spins briefly
// (the partner is usually microseconds away), then sleeps on a condition variable.

// Owns the state the ranks share. Create it once per run, hand communicator(r) to the thread of
// rank r, and keep the group alive until every rank has returned from its last call.
class InProcessGroup {
 public:
  // deviceNames[r] names rank r in errors ("cpu:1"). timeoutSeconds bounds the wait for a late
  // rank at the start of each collective.
  InProcessGroup(int size, std::vector<std::string> deviceNames, double timeoutSeconds);
  ~InProcessGroup();
  InProcessGroup(const InProcessGroup&) = delete;
  InProcessGroup& operator=(const InProcessGroup&) = delete;

  int size() const;
  Communicator& communicator(int rank);

  struct Shared;

 private:
  std::unique_ptr<Shared> m_shared;
  std::vector<std::unique_ptr<Communicator>> m_ranks;
};

// The communicators of one run's workers, rank r for worker r. Keep it alive until every rank has
// returned from its last call (as InProcessGroup).
class CommunicatorGroup {
 public:
  virtual ~CommunicatorGroup() = default;
  virtual int size() const = 0;
  virtual Communicator& communicator(int rank) = 0;
  // Once every rank's thread has stopped: if a rank aborted the group (a failed run), ends what
  // the ranks left queued on their devices (NCCL: ncclCommAbort of every communicator, which
  // stops a collective still waiting for a peer), so that the devices, destroyed before the
  // group, can finish their streams. Nothing for a group that needs no such thing.
  virtual void endAfterFailure() {}
};

// One process's part of a group over the devices of every process of an mpirun job (Note [GPUs
// across processes], engine/devices/device_factory.h).
struct JobGroupPlacement {
  std::string jobId;                       // the leader's makeJobId(), the same in every process
  int firstRank = 0;                       // the job rank of localIds[0]
  std::vector<std::string> jobDeviceIds;   // every rank's device, for messages ("rank1/cuda:0")
  std::vector<std::string> localIds;       // this process's devices ("cuda:0"), in rank order
};

}  // namespace netsmith
