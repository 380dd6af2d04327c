#include "engine/comm/communicator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace netsmith {

Communicator::~Communicator() = default;

void Communicator::allReduceSumPieces(std::span<const ReducePiece> pieces, float* flat) {
  int64_t total = 0;
  for (const ReducePiece& p : pieces) {
    if (p.count) std::memcpy(flat + total, p.data, static_cast<size_t>(p.count) * sizeof(float));
    total += p.count;
  }
  allReduceSum(flat, total);
  total = 0;
  for (const ReducePiece& p : pieces) {
    if (p.count) std::memcpy(p.data, flat + total, static_cast<size_t>(p.count) * sizeof(float));
    total += p.count;
  }
}

namespace {

using Clock = std::chrono::steady_clock;

// A partner is usually a few microseconds away from a round; spinning that long avoids a sleep
// and a wake-up (tens of microseconds, more on a busy machine) per round. After kPauseSpins the
// spin yields the core, so that a partner waiting for a core (N workers on fewer cores, or a
// machine shared with other work) runs sooner; after kSpinTime the rank sleeps. On the 2-core
// development machine under load, yielding spins up to 200 us made the 2-rank all-reduce of a
// LeNet gradient twice as fast (median) as a 50 us pause-only spin.
constexpr int kPauseSpins = 256;
constexpr auto kSpinTime = std::chrono::microseconds(200);
constexpr int64_t kCacheLineFloats = 64 / sizeof(float);
// Floats per block in reduceAndSpread(): the sums stay in L1 until written out.
constexpr int64_t kReduceBlock = 1024;
// Ranks of one in-process group: a tree of them is at most kMaxTreeLevels deep.
constexpr int kMaxRanks = 256;
constexpr int kMaxTreeLevels = 8;

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

enum class Kind { Barrier, AllReduce, Broadcast };

const char* kindName(Kind kind) {
  switch (kind) {
    case Kind::Barrier: return "barrier";
    case Kind::AllReduce: return "all-reduce";
    case Kind::Broadcast: return "broadcast";
  }
  return "?";
}

// What a rank publishes when it enters a collective (Note [In-process all-reduce], step 1).
struct Slot {
  float* data = nullptr;
  int64_t count = 0;
  Kind kind = Kind::Barrier;
  int root = 0;
};

std::string describe(const Slot& s) {
  switch (s.kind) {
    case Kind::Barrier: return "barrier()";
    case Kind::AllReduce: return format("allReduceSum of {} values", s.count);
    case Kind::Broadcast: return format("broadcast of {} values from rank {}", s.count, s.root);
  }
  return "?";
}

// out[0, len) = the tree sum over ranks [lo, hi) of buffers[r][b + i]. `spare` holds one block
// per tree level below this one.
void treeSum(float* const* buffers, int lo, int hi, int64_t b, int64_t len, float* out, float* spare) noexcept {
  if (hi - lo == 1) {
    std::memcpy(out, buffers[lo] + b, static_cast<size_t>(len) * sizeof(float));
    return;
  }
  if (hi - lo == 2) {
    const float* s0 = buffers[lo] + b;
    const float* s1 = buffers[lo + 1] + b;
    for (int64_t i = 0; i < len; ++i) out[i] = s0[i] + s1[i];
    return;
  }
  const int mid = reductionTreeSplit(lo, hi);
  treeSum(buffers, lo, mid, b, len, out, spare);
  treeSum(buffers, mid, hi, b, len, spare, spare + kReduceBlock);
  for (int64_t i = 0; i < len; ++i) out[i] += spare[i];
}

// Sums [begin, end) of the N buffers in the tree order of Note [Reduction tree] and writes the
// sums to [begin, end) of every buffer. Each block is summed into a local array and then
// written out, so every buffer's block is read before any is overwritten.
void reduceAndSpread(float* const* buffers, int n, int64_t begin, int64_t end) noexcept {
  // One block for the result and one per level of a tree of up to kMaxRanks leaves.
  alignas(64) float blocks[kMaxTreeLevels + 1][kReduceBlock];
  for (int64_t b = begin; b < end; b += kReduceBlock) {
    const int64_t len = std::min(kReduceBlock, end - b);
    treeSum(buffers, 0, n, b, len, blocks[0], blocks[1]);
    for (int k = 0; k < n; ++k) std::memcpy(buffers[k] + b, blocks[0], static_cast<size_t>(len) * sizeof(float));
  }
}

}  // namespace

struct InProcessGroup::Shared {
  Shared(int n, std::vector<std::string> names, double seconds)
      : size(n),
        deviceNames(std::move(names)),
        timeoutSeconds(seconds),
        // A timeout of days is "never"; the clamp keeps the deadline arithmetic from overflowing.
        timeout(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(seconds, 1e7)))),
        arrivedAt(static_cast<size_t>(n), 0),
        slots(static_cast<size_t>(n)) {}

  const int size;
  const std::vector<std::string> deviceNames;
  const double timeoutSeconds;
  const Clock::duration timeout;

  std::mutex mutex;
  std::condition_variable changed;
  // Barrier rounds completed; the last rank to arrive advances it (under the mutex, with
  // release order, so a spinning rank that sees the new value also sees what was published).
  std::atomic<uint64_t> generation{0};
  // Mirrors `aborted` for the spin loop, which does not take the mutex.
  std::atomic<bool> abortFlag{false};

  // Guarded by mutex.
  int arrivedCount = 0;
  std::vector<uint64_t> arrivedAt;  // per rank: the generation its last arrival waits for
  bool aborted = false;
  std::string abortMessage;
  int culprit = -1;
  // Per rank: the collective it entered last. Written under the mutex as the rank arrives at a
  // collective's first round; read without it by every rank until the collective's last round,
  // before which no rank can republish.
  std::vector<Slot> slots;

  // The first rank whose collective differs from rank 0's in the round being completed, or -1.
  // Call with mutex held.
  int firstMismatch() const {
    for (int r = 1; r < size; ++r) {
      const Slot& a = slots[0];
      const Slot& b = slots[static_cast<size_t>(r)];
      if (a.kind != b.kind || a.count != b.count || a.root != b.root) return r;
    }
    return -1;
  }

  [[noreturn]] void throwAborted() const { throw CommError(abortMessage, culprit); }

  // Sets the group's error unless it has one; the first reason wins. Call with mutex held.
  void abortLocked(std::string message, int rank) {
    if (aborted) return;
    aborted = true;
    abortMessage = std::move(message);
    culprit = rank;
    abortFlag.store(true, std::memory_order_release);
  }

  // One barrier round. `publish` (if any) becomes this rank's slot as it arrives. A guarded
  // wait gives way to abort() and ends in CommError after the timeout; an exposed one (other
  // ranks may be reading this rank's buffer) is always waited out: Note [In-process all-reduce].
  void arrive(int rank, const Slot* publish, bool exposed) {
    const auto arrival = Clock::now();
    uint64_t target = 0;
    {
      std::unique_lock lock(mutex);
      if (!exposed && aborted) throwAborted();
      if (publish) slots[static_cast<size_t>(rank)] = *publish;
      target = generation.load(std::memory_order_relaxed) + 1;
      arrivedAt[static_cast<size_t>(rank)] = target;
      if (++arrivedCount == size) {
        arrivedCount = 0;
        if (publish) {
          // Nobody has passed this round yet, so every rank can leave without harm.
          if (int r = firstMismatch(); r >= 0) {
            abortLocked(format("the devices made different collectives: {} made {}, {} made {} (every device "
                               "must reduce the same buckets in the same order: Note [Bucket order])",
                               deviceNames[0], describe(slots[0]), deviceNames[static_cast<size_t>(r)],
                               describe(slots[static_cast<size_t>(r)])),
                        r);
            CommError error(abortMessage, culprit);
            lock.unlock();
            changed.notify_all();
            throw error;
          }
        }
        generation.store(target, std::memory_order_release);
        lock.unlock();
        changed.notify_all();
        return;
      }
    }
    const auto spinEnd = arrival + kSpinTime;
    for (int i = 1;; ++i) {
      if (generation.load(std::memory_order_acquire) >= target) return;
      if (!exposed && abortFlag.load(std::memory_order_relaxed)) break;
      if (i % 64 == 0 && Clock::now() >= spinEnd) break;
      if (i < kPauseSpins) cpuRelax();
      else std::this_thread::yield();
    }
    std::unique_lock lock(mutex);
    const auto passed = [&] { return generation.load(std::memory_order_relaxed) >= target; };
    if (exposed) {
      changed.wait(lock, passed);
      return;
    }
    changed.wait_until(lock, arrival + timeout, [&] { return passed() || aborted; });
    // A round that completed wins over a later abort: the others are already reading our buffer.
    if (passed()) return;
    if (!aborted) {
      std::string missing;
      int first = -1;
      for (int r = 0; r < size; ++r) {
        if (arrivedAt[static_cast<size_t>(r)] >= target) continue;
        if (first < 0) first = r;
        missing += (missing.empty() ? "" : ", ") + deviceNames[static_cast<size_t>(r)];
      }
      const char* what = kindName(slots[static_cast<size_t>(rank)].kind);
      abortLocked(format("{} did not reach the {} within {} s", missing, what, timeoutSeconds), first);
      CommError error(abortMessage, culprit);
      lock.unlock();
      changed.notify_all();
      throw error;
    }
    throwAborted();
  }

  void abort(int rank, const std::string& reason) {
    {
      std::lock_guard lock(mutex);
      abortLocked(format("{} failed: {}", deviceNames[static_cast<size_t>(rank)], reason), rank);
    }
    changed.notify_all();
  }

  void throwIfAborted() {
    if (!abortFlag.load(std::memory_order_acquire)) return;
    std::lock_guard lock(mutex);
    throwAborted();
  }
};

namespace {

class InProcessCommunicator final : public Communicator {
 public:
  InProcessCommunicator(InProcessGroup::Shared& shared, int rank)
      : m_shared(shared),
        m_rank(rank),
        m_buffers(static_cast<size_t>(shared.size)) {}

  int rank() const override { return m_rank; }
  int size() const override { return m_shared.size; }
  const std::string& deviceName(int rank) const override {
    NS_CHECK(rank >= 0 && rank < m_shared.size, "rank {} is out of range (group of {})", rank, m_shared.size);
    return m_shared.deviceNames[static_cast<size_t>(rank)];
  }

  void allReduceSum(float* data, int64_t count) override {
    NS_CHECK(count >= 0, "allReduceSum: count must be >= 0, got {}", count);
    NS_CHECK(data || count == 0, "allReduceSum: null buffer for {} values", count);
    const int n = m_shared.size;
    if (n == 1) return m_shared.throwIfAborted();
    const Slot mine{data, count, Kind::AllReduce, 0};
    m_shared.arrive(m_rank, &mine, false);

    // From here to the second round no rank may leave: Note [In-process all-reduce].
    int64_t chunk = (count + n - 1) / n;
    chunk = (chunk + kCacheLineFloats - 1) / kCacheLineFloats * kCacheLineFloats;
    const auto chunkBegin = [&](int r) { return std::min(static_cast<int64_t>(r) * chunk, count); };
    for (int r = 0; r < n; ++r) m_buffers[static_cast<size_t>(r)] = m_shared.slots[static_cast<size_t>(r)].data;
    reduceAndSpread(m_buffers.data(), n, chunkBegin(m_rank), chunkBegin(m_rank + 1));
    m_shared.arrive(m_rank, nullptr, true);
    m_shared.throwIfAborted();
  }

  void broadcast(float* data, int64_t count, int root) override {
    NS_CHECK(count >= 0, "broadcast: count must be >= 0, got {}", count);
    NS_CHECK(data || count == 0, "broadcast: null buffer for {} values", count);
    NS_CHECK(root >= 0 && root < m_shared.size, "broadcast: root {} is out of range (group of {})", root, m_shared.size);
    if (m_shared.size == 1) return m_shared.throwIfAborted();
    const Slot mine{data, count, Kind::Broadcast, root};
    m_shared.arrive(m_rank, &mine, false);
    if (m_rank != root && count > 0) {
      std::memcpy(data, m_shared.slots[static_cast<size_t>(root)].data, static_cast<size_t>(count) * sizeof(float));
    }
    m_shared.arrive(m_rank, nullptr, true);
    m_shared.throwIfAborted();
  }

  void barrier() override {
    if (m_shared.size == 1) return m_shared.throwIfAborted();
    const Slot mine{nullptr, 0, Kind::Barrier, 0};
    m_shared.arrive(m_rank, &mine, false);
  }

  void abort(const std::string& reason) override { m_shared.abort(m_rank, reason); }

 private:
  InProcessGroup::Shared& m_shared;
  const int m_rank;
  // Preallocated so that nothing between the first and last round can throw.
  std::vector<float*> m_buffers;
};

}  // namespace

InProcessGroup::InProcessGroup(int size, std::vector<std::string> deviceNames, double timeoutSeconds) {
  NS_CHECK(size >= 1 && size <= kMaxRanks, "a communicator group has 1 to {} ranks, got {}", kMaxRanks, size);
  NS_CHECK(static_cast<int>(deviceNames.size()) == size, "a group of {} ranks needs {} device names, got {}", size,
           size, deviceNames.size());
  NS_CHECK(timeoutSeconds > 0, "the collective timeout must be > 0 s, got {}", timeoutSeconds);
  m_shared = std::make_unique<Shared>(size, std::move(deviceNames), timeoutSeconds);
  for (int r = 0; r < size; ++r) m_ranks.push_back(std::make_unique<InProcessCommunicator>(*m_shared, r));
}

InProcessGroup::~InProcessGroup() = default;

int InProcessGroup::size() const { return m_shared->size; }

Communicator& InProcessGroup::communicator(int rank) {
  NS_CHECK(rank >= 0 && rank < m_shared->size, "rank {} is out of range (group of {})", rank, m_shared->size);
  return *m_ranks[static_cast<size_t>(rank)];
}

}  // namespace netsmith
