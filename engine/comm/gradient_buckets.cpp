#include "engine/comm/gradient_buckets.h"

#include <chrono>
#include <optional>

#include "engine/core/error.h"

namespace netsmith {

GradientBuckets::GradientBuckets(std::vector<Tensor*> grads, BucketOptions options, TensorAllocator* flatMemory)
    : m_grads(std::move(grads)) {
  NS_CHECK(options.firstBucketBytes > 0 && options.bucketBytes > 0,
           "bucket caps must be > 0 bytes, got first {} and {}", options.firstBucketBytes, options.bucketBytes);
  for (size_t g = 0; g < m_grads.size(); ++g) {
    NS_CHECK(m_grads[g] != nullptr, "gradient {} of {} is null: pass only trainable blobs", g, m_grads.size());
    m_sizes.push_back(m_grads[g]->size());
  }
  const int n = gradientCount();
  int first = 0;
  while (first < n) {
    const int64_t capBytes = m_buckets.empty() ? options.firstBucketBytes : options.bucketBytes;
    Bucket b;
    b.firstGradient = first;
    b.endGradient = first;
    while (b.endGradient < n && b.size * static_cast<int64_t>(sizeof(float)) < capBytes) {
      b.size += m_sizes[static_cast<size_t>(b.endGradient++)];
    }
    if (b.endGradient - b.firstGradient > 1) b.flat = Tensor(Shape{b.size}, flatMemory);
    for (int g = b.firstGradient; g < b.endGradient; ++g) m_bucketOf.push_back(bucketCount());
    first = b.endGradient;
    m_buckets.push_back(std::move(b));
  }
}

int GradientBuckets::bucketOf(int gradient) const {
  NS_CHECK(gradient >= 0 && gradient < gradientCount(), "gradient {} is out of range ({} gradients)", gradient,
           gradientCount());
  return m_bucketOf[static_cast<size_t>(gradient)];
}

int GradientBuckets::firstGradient(int bucket) const {
  NS_CHECK(bucket >= 0 && bucket <= bucketCount(), "bucket {} is out of range ({} buckets)", bucket, bucketCount());
  return bucket == bucketCount() ? gradientCount() : m_buckets[static_cast<size_t>(bucket)].firstGradient;
}

int64_t GradientBuckets::bucketSize(int bucket) const {
  NS_CHECK(bucket >= 0 && bucket < bucketCount(), "bucket {} is out of range ({} buckets)", bucket, bucketCount());
  return m_buckets[static_cast<size_t>(bucket)].size;
}

float* GradientBuckets::bucketData(int bucket) {
  NS_CHECK(bucket >= 0 && bucket < bucketCount(), "bucket {} is out of range ({} buckets)", bucket, bucketCount());
  Bucket& b = m_buckets[static_cast<size_t>(bucket)];
  if (b.flat.empty() && b.size > 0) {
    checkSize(b.firstGradient);
    return m_grads[static_cast<size_t>(b.firstGradient)]->data();
  }
  return b.flat.data();
}

void GradientBuckets::checkSize(int gradient) const {
  const int64_t now = m_grads[static_cast<size_t>(gradient)]->size();
  NS_CHECK(now == m_sizes[static_cast<size_t>(gradient)],
           "gradient {} changed size from {} to {} values after its bucket was laid out", gradient,
           m_sizes[static_cast<size_t>(gradient)], now);
}

float* GradientBuckets::gatherPieces(int bucket) {
  Bucket& b = m_buckets[static_cast<size_t>(bucket)];
  if (b.flat.empty()) {  // one gradient, reduced in place: its own buffer is the flat one
    b.pieces.assign(1, ReducePiece{bucketData(bucket), b.size});
    return b.pieces[0].data;
  }
  b.pieces.clear();
  for (int g = b.firstGradient; g < b.endGradient; ++g) {
    checkSize(g);
    b.pieces.push_back({m_grads[static_cast<size_t>(g)]->data(), m_sizes[static_cast<size_t>(g)]});
  }
  return b.flat.data();
}

void GradientBuckets::reduce(int bucket, Communicator& comm) {
  Bucket& b = m_buckets[static_cast<size_t>(bucket)];
  if (b.size == 0) return;
  float* flat = gatherPieces(bucket);
  if (b.flat.empty()) comm.allReduceSum(flat, b.size);
  else comm.allReduceSumPieces(b.pieces, flat);
}

void GradientBuckets::queueReduce(int bucket, Communicator& comm) {
  Bucket& b = m_buckets[static_cast<size_t>(bucket)];
  if (!comm.queuesCollectives()) return reduce(bucket, comm);
  if (b.size == 0) return;
  float* flat = gatherPieces(bucket);
  comm.queueAllReduceSumPieces(b.pieces, flat, bucket);
}

BucketReducer::BucketReducer(Communicator& communicator, GradientBuckets& buckets)
    : m_comm(communicator),
      m_buckets(buckets),
      m_ready(static_cast<size_t>(buckets.bucketCount()), 0) {
  for (int b = 0; b < buckets.bucketCount(); ++b) {
    m_pendingPerBucket.push_back(buckets.firstGradient(b + 1) - buckets.firstGradient(b));
  }
  m_thread = std::thread([this] { run(); });
}

BucketReducer::~BucketReducer() {
  bool midIteration = false;
  {
    std::lock_guard lock(m_mutex);
    midIteration = m_started && !m_error;
    m_stop = true;
  }
  // Mid-iteration the other ranks are in, or about to enter, a collective this rank will not
  // make; without the abort they would wait for it until the timeout. It also ends a collective
  // this rank's thread is waiting in.
  if (midIteration) m_comm.abort("stopped before its gradients were all-reduced");
  m_changed.notify_all();
  m_thread.join();
}

void BucketReducer::gradientReady(int gradient) {
  const int b = m_buckets.bucketOf(gradient);
  int& pending = m_pendingPerBucket[static_cast<size_t>(b)];
  NS_CHECK(pending > 0, "gradient {} marked ready after all of bucket {} was (twice in one iteration?)", gradient, b);
  if (--pending == 0) bucketReady(b);
}

void BucketReducer::bucketReady(int bucket) {
  NS_CHECK(bucket >= 0 && bucket < m_buckets.bucketCount(), "bucket {} is out of range ({} buckets)", bucket,
           m_buckets.bucketCount());
  {
    std::lock_guard lock(m_mutex);
    NS_CHECK(!m_ready[static_cast<size_t>(bucket)], "bucket {} marked ready twice in one iteration", bucket);
  }
  // Note [Queued collectives]: the point on the device the bucket's collective waits for is where
  // the host is now, right after queueing its gradients, not where it will be when the reducer's
  // thread gets to the bucket (by then the host may have queued the whole backward pass).
  m_comm.markQueued(bucket);
  {
    std::lock_guard lock(m_mutex);
    m_ready[static_cast<size_t>(bucket)] = 1;
    m_started = true;
  }
  m_changed.notify_all();
}

void BucketReducer::orderAfterReduced() {
  if (!m_comm.queuesCollectives()) return;
  {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_error || m_reduced == m_buckets.bucketCount(); });
    if (m_error) std::rethrow_exception(m_error);
  }
  m_comm.orderAfterQueued();
}

void BucketReducer::wait() {
  const auto start = std::chrono::steady_clock::now();
  {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_error || m_reduced == m_buckets.bucketCount(); });
    if (m_error) std::rethrow_exception(m_error);
  }
  // Every bucket is queued; on a device the host now waits once for all of them.
  std::optional<QueuedTiming> device;
  if (m_comm.queuesCollectives()) {
    try {
      device = m_comm.finishQueued();
    } catch (...) {
      std::lock_guard lock(m_mutex);
      m_error = std::current_exception();
      throw;
    }
  }
  std::lock_guard lock(m_mutex);
  m_last.deviceClock = device.has_value();
  m_last.commSeconds = device ? device->commSeconds : m_commSeconds;
  m_last.waitSeconds = device ? device->unhiddenSeconds
                              : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fill(m_ready.begin(), m_ready.end(), 0);
  m_next = 0;
  m_reduced = 0;
  m_started = false;
  m_commSeconds = 0;
  for (int b = 0; b < m_buckets.bucketCount(); ++b) {
    m_pendingPerBucket[static_cast<size_t>(b)] = m_buckets.firstGradient(b + 1) - m_buckets.firstGradient(b);
  }
}

int BucketReducer::reducedCount() const {
  std::lock_guard lock(m_mutex);
  return m_reduced;
}

BucketReducer::Timing BucketReducer::lastIteration() const {
  std::lock_guard lock(m_mutex);
  return m_last;
}

void BucketReducer::run() {
  for (;;) {
    int bucket = 0;
    {
      std::unique_lock lock(m_mutex);
      // After an error the thread makes no more collectives: the group is aborted, and the
      // order of this rank's collectives is no longer known to match the others'.
      m_changed.wait(lock, [&] {
        return m_stop || (!m_error && m_next < m_buckets.bucketCount() && m_ready[static_cast<size_t>(m_next)]);
      });
      if (m_stop) return;
      bucket = m_next;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
      m_buckets.queueReduce(bucket, m_comm);
    } catch (const CommError&) {
      std::lock_guard lock(m_mutex);
      m_error = std::current_exception();
    } catch (const std::exception& e) {
      // This rank will not make the collective: tell the others rather than let them time out.
      m_comm.abort(e.what());
      std::lock_guard lock(m_mutex);
      m_error = std::current_exception();
    } catch (...) {
      m_comm.abort("unknown error in the gradient all-reduce");
      std::lock_guard lock(m_mutex);
      m_error = std::current_exception();
    }
    {
      std::lock_guard lock(m_mutex);
      if (!m_error) {
        ++m_next;
        ++m_reduced;
        m_commSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    }
    m_changed.notify_all();
  }
}

}  // namespace netsmith
