// GradientBuckets: a worker's gradients grouped into flat buffers, one all-reduce per bucket.
// BucketReducer: the worker's communication thread, which reduces each bucket as soon as
// backward has produced it while backward goes on with the rest of the network.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/comm/communicator.h"
#include "engine/core/tensor.h"

namespace netsmith {

// Note [Bucket order]
// Collectives pair up by position: the k-th call on one rank meets the k-th call on every other
// rank (Note [In-process all-reduce]; NCCL and MPI work the same way). So every rank must make the
// same collectives in the same order, whatever the timing:
//   - every rank builds GradientBuckets from the same gradient list (one replica of the same
//     graph: same blobs, sizes and order) with the same options, so bucket b holds the same
//     gradients, and the same number of floats, on every rank;
//   - the list is in the order backward finishes the gradients (reverse graph order), so bucket
//     0, made of the last layers, is complete first; it is small (1 MiB by default, as in PyTorch
//     DDP) so that communication starts early in backward; later buckets are larger (fewer,
//     larger collectives cost less per byte);
//   - each rank's BucketReducer reduces buckets strictly in index order 0, 1, ..., B-1: a bucket
//     that is ready before a lower-numbered one (a branch of the graph that finished early)
//     waits for it. The order of bucketReady() calls may differ between ranks; the order of
//     collectives cannot;
//   - from the first bucketReady() of an iteration until its wait() returns, the reducer's thread
//     is the rank's only caller of the communicator. The worker makes its own collectives
//     (broadcast of the initial parameters, barriers, fingerprint checks) outside that window,
//     in the same order on every rank.
// A rank that breaks the order meets a collective of another kind or size; the communicator
// detects that and every rank throws CommError instead of summing unrelated buffers.

struct BucketOptions {
  int64_t firstBucketBytes = int64_t{1} << 20;
  int64_t bucketBytes = int64_t{25} << 20;
};

// Groups gradients into buckets of consecutive gradients: a bucket is closed once it holds at
// least its cap (firstBucketBytes for bucket 0, bucketBytes after), so a bucket exceeds its cap by
// less than one gradient, and a gradient larger than the cap has a bucket to itself. A bucket of
// several gradients has its own flat buffer, which reduce() hands to the communicator with the
// gradients (Communicator::allReduceSumPieces: copied in, summed, copied back, on the device
// where the gradients live); a bucket of one gradient is reduced in place.
// Not thread-safe; BucketReducer calls reduce() from its thread.
class GradientBuckets {
 public:
  // grads: the trainable gradients in the order backward finishes them. They must outlive this
  // object and keep their sizes. flatMemory: where the flat buffers live, the gradients' memory
  // (a device's allocator; null: the host).
  explicit GradientBuckets(std::vector<Tensor*> grads, BucketOptions options = {},
                           TensorAllocator* flatMemory = nullptr);

  int bucketCount() const { return static_cast<int>(m_buckets.size()); }
  int gradientCount() const { return static_cast<int>(m_grads.size()); }
  int bucketOf(int gradient) const;
  // The gradients of bucket b are [firstGradient(b), firstGradient(b + 1)).
  int firstGradient(int bucket) const;
  int64_t bucketSize(int bucket) const;  // floats
  // Where the bucket's sums are formed: its flat buffer, or the gradient of a one-gradient bucket.
  float* bucketData(int bucket);
  // Sums bucket `bucket` over the ranks of `comm`: one collective, returning when it is done.
  void reduce(int bucket, Communicator& comm);
  // The same collective queued behind the communicator's mark `bucket` (Note [Queued
  // collectives]); it completes by the communicator's finishQueued(). On a communicator that does
  // not queue, reduce().
  void queueReduce(int bucket, Communicator& comm);

 private:
  struct Bucket {
    int firstGradient = 0;
    int endGradient = 0;
    int64_t size = 0;
    Tensor flat;  // empty for a bucket of one gradient
    std::vector<ReducePiece> pieces;  // the gradients' current buffers; reused, no allocation per iteration
  };
  void checkSize(int gradient) const;
  // The bucket's gradients as pieces (b.pieces) and the buffer their sums are formed in.
  float* gatherPieces(int bucket);

  std::vector<Tensor*> m_grads;
  std::vector<int64_t> m_sizes;
  std::vector<int> m_bucketOf;
  std::vector<Bucket> m_buckets;
};

// The communication thread of one worker: it all-reduces (sums) the buckets of each iteration
// in index order (Note [Bucket order]) while the worker's thread goes on computing.
//
// Per iteration, on the worker's thread: as backward finishes gradients, call gradientReady(g)
// for each (or bucketReady(b) once a whole bucket is done); then wait(), which returns when all
// buckets have been summed over the ranks and copied back into the gradients — on a communicator
// that queues its collectives (Note [Queued collectives]), when they are queued in order behind
// the marks bucketReady made on the compute stream and the compute stream waits for them. A gradient must
// not be written between being marked ready and wait() returning. Errors of the communication
// (CommError: a rank failed or is late) come out of wait(), on this and every later call.
class BucketReducer {
 public:
  BucketReducer(Communicator& communicator, GradientBuckets& buckets);
  // Stops the thread. Destroyed in the middle of an iteration (the worker failed), it first
  // aborts the communicator, so the other ranks stop instead of waiting for this one; a reason
  // given to abort() before takes precedence.
  ~BucketReducer();
  BucketReducer(const BucketReducer&) = delete;
  BucketReducer& operator=(const BucketReducer&) = delete;

  void gradientReady(int gradient);
  void bucketReady(int bucket);
  void wait();
  // On a communicator that queues: returns once every bucket of the iteration is queued, with the
  // compute stream ordered after them, without waiting for them (Communicator::orderAfterQueued);
  // wait() must still follow. Nothing on one that does not queue.
  void orderAfterReduced();

  // Buckets of the current iteration already summed and copied back; any thread.
  int reducedCount() const;
  struct Timing {
    double commSeconds = 0;  // the communication thread's time in gather + all-reduce + scatter
    double waitSeconds = 0;  // the worker's time blocked in wait(): communication not hidden
    // Both measured on the device's clock (Note [Queued collectives]): the communication
    // stream's time, and the part of it after backward had finished. The host's wait there
    // includes its own device's backward, which it queued ahead.
    bool deviceClock = false;
  };
  Timing lastIteration() const;  // of the last wait() that returned

 private:
  void run();

  Communicator& m_comm;
  GradientBuckets& m_buckets;
  std::vector<int> m_pendingPerBucket;  // gradients not yet ready; worker thread only

  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<char> m_ready;  // per bucket, this iteration
  int m_next = 0;             // the bucket the thread reduces next
  int m_reduced = 0;
  bool m_started = false;  // some bucket of this iteration was marked ready
  bool m_stop = false;
  std::exception_ptr m_error;
  double m_commSeconds = 0;
  Timing m_last;

  std::thread m_thread;  // last: it starts once everything above exists
};

}  // namespace netsmith
