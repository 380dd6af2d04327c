// One rank of NcclGroup: its collectives on its GPU's communication stream (Note [NCCL
// collectives] in nccl_group.h, Note [Queued collectives], Note [Tree order over NCCL]).
#include "engine/backend/cuda/nccl_rank.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/cuda_launch.h"
#include "engine/backend/cuda/elementwise_bodies.h"

namespace netsmith::cuda {

using Clock = std::chrono::steady_clock;

namespace {

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(std::shared_ptr<NcclGroupState> shared, int local) : m_shared(std::move(shared)), m_local(local) {}
  ~NcclCommunicator() override {
    GpuRuntime& runtime = gpuRuntime();
    if (m_ready) runtime.eventDestroy(m_ready);
    if (m_done) runtime.eventDestroy(m_done);
    for (cudaEvent_t e : m_marks) runtime.eventDestroy(e);
    for (cudaEvent_t e : m_dones) runtime.eventDestroy(e);
    for (auto& [p, floats] : m_scratch) runtime.free(p);
    if (m_one) runtime.free(m_one);
  }

  int rank() const override { return m_shared->firstRank + m_local; }
  int size() const override { return static_cast<int>(m_shared->names.size()); }
  const std::string& deviceName(int rank) const override { return m_shared->names.at(static_cast<size_t>(rank)); }

  void attach(CudaDeviceContext& device) {
    m_device = &device;
    device.makeCurrent();
    GpuRuntime& runtime = gpuRuntime();
    NS_CUDA_CHECK(runtime.eventCreate(&m_ready));
    NS_CUDA_CHECK(runtime.eventCreate(&m_done));
    NS_CUDA_CHECK(runtime.malloc(reinterpret_cast<void**>(&m_one), sizeof(float)));
    // NCCL connects the ranks lazily, inside the first collective: make that happen here, where
    // every worker arrives together, so a GPU that cannot join is named at start, within the
    // timeout, and not in the middle of the first backward pass.
    run("warm-up all-reduce", [&](ncclComm_t comm, cudaStream_t s) {
      return gpuRuntime().allReduceSum(m_one, m_one, 1, comm, s);
    });
  }

  void allReduceSum(float* data, int64_t count) override {
    run("all-reduce", [&](ncclComm_t comm, cudaStream_t s) { return sumOverRanks(data, count, comm, s, "all-reduce"); });
  }

  // Note [Tree order over NCCL]
  // NCCL adds the ranks' buffers in its ring's (or tree's) order, which for 3 or more ranks is not
  // Note [Reduction tree]'s, and differs between chunks of one buffer: reproducible mode would then
  // give other weights on 4 GPUs than on 1 (the promise of Note [Reproducible training]), and
  // would depend on NCCL's choice of algorithm. So in reproducible mode with 3 or more ranks a sum
  // is a gather — one broadcast from each rank into a scratch buffer of ranks x count floats — and
  // a kernel that adds the gathered buffers in the tree's order (body::TreeSum), the same on every
  // rank. It moves (ranks - 1) x count floats into each GPU instead of the ring's
  // 2 (ranks - 1) / ranks x count, and needs the scratch memory; reproducible mode pays for its
  // order elsewhere too. With 2 ranks every order is x0 + x1, and NCCL's all-reduce is kept.
  void requireTreeOrder() override {
    NS_CHECK(size() <= cuda::body::TreeSum::kMaxRanks,
             "reproducible mode on {} GPUs: the tree-order sum handles up to {} GPUs in one process", size(),
             cuda::body::TreeSum::kMaxRanks);
    m_treeOrder = size() > 2;
  }
  // Note [NCCL collectives]: a bucket's gradients are copied into its flat buffer, summed and
  // copied back on the communication stream, device to device, after the event that orders the
  // collective behind backward; the copies back are queued once NCCL has queued the collective.
  void allReduceSumPieces(std::span<const ReducePiece> pieces, float* flat) override {
    int64_t total = 0;
    for (const ReducePiece& p : pieces) total += p.count;
    run(
        "all-reduce",
        [&](ncclComm_t comm, cudaStream_t s) {
          copyPieces(pieces, flat, s, true);
          return sumOverRanks(flat, total, comm, s, "all-reduce");
        },
        [&](cudaStream_t s) { copyPieces(pieces, flat, s, false); });
  }

  // Note [Queued collectives].
  bool queuesCollectives() const override { return true; }

  void markQueued(int tag) override {
    const cudaEvent_t mark = timedEvent(m_marks, tag);
    NS_CUDA_CHECK(gpuRuntime().eventRecord(mark, m_device->stream()));
    std::lock_guard lock(m_queueMutex);
    if (m_marksThisIteration++ == 0) m_firstMark = tag;
    m_lastMark = tag;
  }

  void queueAllReduceSumPieces(std::span<const ReducePiece> pieces, float* flat, int tag) override {
    int64_t total = 0;
    for (const ReducePiece& p : pieces) total += p.count;
    // A bucket of one gradient is summed in place: nothing to copy.
    const bool inPlace = pieces.size() == 1 && pieces[0].data == flat;
    const cudaEvent_t mark = timedEvent(m_marks, tag);
    const cudaEvent_t done = timedEvent(m_dones, tag);
    enqueue(
        "all-reduce", mark,
        [&](ncclComm_t comm, cudaStream_t s) {
          if (!inPlace) copyPieces(pieces, flat, s, true);
          return sumOverRanks(flat, total, comm, s, "all-reduce");
        },
        [&](cudaStream_t s) {
          if (!inPlace) copyPieces(pieces, flat, s, false);
        },
        done);
    std::lock_guard lock(m_queueMutex);
    m_queued.push_back(tag);
  }

  void orderAfterQueued() override {
    int last;
    {
      std::lock_guard lock(m_queueMutex);
      if (m_queued.empty()) return;
      last = m_queued.back();
    }
    m_device->makeCurrent();
    NS_CUDA_CHECK(gpuRuntime().streamWaitEvent(m_device->stream(), timedEvent(m_dones, last)));
  }

  QueuedTiming finishQueued() override {
    std::vector<int> queued;
    int firstMark, lastMark;
    {
      std::lock_guard lock(m_queueMutex);
      queued.swap(m_queued);
      firstMark = m_firstMark;
      lastMark = m_lastMark;
      m_marksThisIteration = 0;
    }
    if (queued.empty()) return {};
    GpuRuntime& runtime = gpuRuntime();
    m_device->makeCurrent();
    ncclComm_t comm = m_shared->comms[static_cast<size_t>(m_local)];
    const cudaEvent_t backwardDone = timedEvent(m_marks, lastMark);
    const cudaEvent_t allDone = timedEvent(m_dones, queued.back());
    // This GPU's own backward pass first, however long it takes: the timeout is for the peers.
    waitOwnWork(comm, "all-reduce", backwardDone);
    waitFor(comm, "all-reduce", Clock::now(), [&] { return completed(allDone, "all-reduce"); });
    checkAsyncError(comm, "all-reduce");
    NS_CUDA_CHECK(runtime.streamWaitEvent(m_device->stream(), allDone));
    // The device's times, from the first mark: each bucket's collective runs from when both its
    // gradients and the bucket before it are done to its own end.
    const cudaEvent_t origin = timedEvent(m_marks, firstMark);
    const auto at = [&](cudaEvent_t e) {
      float ms = 0;
      NS_CUDA_CHECK(runtime.eventElapsedTime(&ms, origin, e));
      return static_cast<double>(ms) / 1000.0;
    };
    const double backwardEnd = at(backwardDone);
    QueuedTiming t;
    double previousEnd = 0;
    for (const int tag : queued) {
      const double end = at(timedEvent(m_dones, tag));
      const double start = std::max(at(timedEvent(m_marks, tag)), previousEnd);
      t.commSeconds += std::max(0.0, end - start);
      previousEnd = end;
    }
    t.unhiddenSeconds = std::max(0.0, previousEnd - backwardEnd);
    return t;
  }

  void broadcast(float* data, int64_t count, int root) override {
    run("broadcast", [&](ncclComm_t comm, cudaStream_t s) {
      return gpuRuntime().broadcast(data, data, static_cast<size_t>(count), root, comm, s);
    });
  }
  void barrier() override {
    run("barrier", [&](ncclComm_t comm, cudaStream_t s) { return gpuRuntime().allReduceSum(m_one, m_one, 1, comm, s); });
  }
  void abort(const std::string& reason) override {
    m_shared->abortWith(format("{} failed: {}", deviceName(rank()), reason), rank());
  }

 private:
  [[noreturn]] void throwAborted() {
    std::string message;
    int culprit;
    {
      std::lock_guard lock(m_shared->mutex);
      message = m_shared->abortMessage;
      culprit = m_shared->culprit;
    }
    abortComm();
    throw CommError(message, culprit);
  }

  // ncclCommAbort waits for NCCL's threads of this rank: it runs outside the group's mutex, which
  // every other rank needs to report its own failure meanwhile.
  void abortComm() {
    ncclComm_t comm = nullptr;
    {
      std::lock_guard lock(m_shared->mutex);
      comm = std::exchange(m_shared->comms[static_cast<size_t>(m_local)], nullptr);
    }
    if (comm) gpuRuntime().commAbort(comm);
  }

  // The rank that has started the fewest collectives: the one the others wait for. Only this
  // process's counts are known; when its ranks are all as far as this one and the job has ranks in
  // other processes, the late one is there: -1.
  int lateRank() const {
    int late = -1;
    int64_t fewest = 0;
    for (int r = 0; r < m_shared->localCount(); ++r) {
      const int64_t c = m_shared->calls[static_cast<size_t>(r)].load();
      if (late < 0 || c < fewest) late = r, fewest = c;
    }
    if (m_shared->localCount() < size() && fewest == m_shared->calls[static_cast<size_t>(m_local)].load()) return -1;
    return m_shared->firstRank + late;
  }
  std::string lateName(int late) const {
    if (late >= 0) return deviceName(late);
    std::string others;
    for (int r = 0; r < size(); ++r)
      if (r < m_shared->firstRank || r >= m_shared->firstRank + m_shared->localCount())
        others += (others.empty() ? "" : ", ") + deviceName(r);
    return "a GPU of another process (one of " + others + ")";
  }

  // Polls until done() says true. Throws CommError (after aborting this rank's communicator) when
  // NCCL reports an error, another rank aborted, or (bounded) the wait passes the timeout, which names the
  // late GPU and the collective.
  template <typename Done>
  void waitFor(ncclComm_t comm, const char* what, Clock::time_point start, Done&& done, bool bounded = true) {
    for (int spins = 0;; ++spins) {
      if (done()) return;
      checkAsyncError(comm, what, /*inProgressIsFine=*/true);
      if (m_shared->aborted.load()) throwAborted();
      const double waited = std::chrono::duration<double>(Clock::now() - start).count();
      if (bounded && waited > m_shared->timeoutSeconds) {
        const int late = lateRank();
        m_shared->abortWith(format("{} did not reach the {} within {} s (NCCL collective aborted)", lateName(late),
                                   what, m_shared->timeoutSeconds),
                            late);
        throwAborted();
      }
      if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
      else std::this_thread::yield();
    }
  }

  // True when a non-blocking communicator has finished its last call.
  static bool ready(ncclComm_t comm) {
    ncclResult_t state = ncclInProgress;
    return gpuRuntime().commGetAsyncError(comm, &state) == ncclSuccess && state == ncclSuccess;
  }

  // Queues call(comm, commStream) behind `after` event `gate` (recorded on the compute stream),
  // then after(commStream) once NCCL has the collective on the stream, then records `done` on it.
  // Returns without waiting for the device.
  template <typename Call, typename After>
  void enqueue(const char* what, cudaEvent_t gate, Call&& call, After&& after, cudaEvent_t done) {
    NS_CHECK(m_device, "{}: the NCCL communicator of rank {} has no device attached (a bug)", deviceName(rank()),
             rank());
    if (m_shared->aborted.load()) throwAborted();
    m_shared->calls[static_cast<size_t>(m_local)].fetch_add(1);
    m_device->makeCurrent();
    GpuRuntime& runtime = gpuRuntime();
    ncclComm_t comm = m_shared->comms[static_cast<size_t>(m_local)];
    const cudaStream_t commStream = m_device->commStream();
    NS_CUDA_CHECK(runtime.streamWaitEvent(commStream, gate));
    const ncclResult_t queued = call(comm, commStream);
    if (queued != ncclSuccess && queued != ncclInProgress) {
      abort(format("NCCL {} failed: {} ({})", what, runtime.ncclErrorString(queued), runtime.ncclLastError(comm)));
      throwAborted();
    }
    // Note [NCCL collectives]: a non-blocking communicator may return ncclInProgress; the
    // collective is on the stream only once the communicator reports ncclSuccess. The event
    // must come after it, and NCCL takes no other call before then.
    if (queued == ncclInProgress) waitFor(comm, what, Clock::now(), [&] { return ready(comm); });
    after(commStream);
    NS_CUDA_CHECK(runtime.eventRecord(done, commStream));
  }

  // A blocking collective: queued behind everything queued on the compute stream so far; returns
  // when it has completed, the compute stream ordered after it.
  template <typename Call, typename After = void (*)(cudaStream_t)>
  void run(const char* what, Call&& call, After&& after = [](cudaStream_t) {}) {
    NS_CHECK(m_device, "{}: the NCCL communicator of rank {} has no device attached (a bug)", deviceName(rank()),
             rank());
    m_device->makeCurrent();
    GpuRuntime& runtime = gpuRuntime();
    NS_CUDA_CHECK(runtime.eventRecord(m_ready, m_device->stream()));
    enqueue(what, m_ready, call, after, m_done);
    ncclComm_t comm = m_shared->comms[static_cast<size_t>(m_local)];
    waitOwnWork(comm, what, m_ready);
    waitFor(comm, what, Clock::now(), [&] { return completed(m_done, what); });
    checkAsyncError(comm, what);
    // The optimizer, queued next on the compute stream, reads the sums.
    NS_CUDA_CHECK(runtime.streamWaitEvent(m_device->stream(), m_done));
  }

  // True once the device has reached `event`; a CUDA error there (a kernel fault, which surfaces
  // at the next synchronisation) aborts the group naming this GPU.
  bool completed(cudaEvent_t event, const char* what) {
    GpuRuntime& runtime = gpuRuntime();
    const cudaError_t state = runtime.eventQuery(event);
    if (state == cudaSuccess) return true;
    if (state != cudaErrorNotReady) {
      abort(format("CUDA error {} while waiting for the NCCL {}: {}", runtime.errorName(state), what,
                   runtime.lastErrorDetail()));
      throwAborted();
    }
    return false;
  }

  // Until this GPU has done the work queued before the collective (its own backward pass): no
  // timeout, since a long backward (a big model, a slow GPU) is not a late peer; it still ends at
  // once when another rank aborts or NCCL reports an error.
  void waitOwnWork(ncclComm_t comm, const char* what, cudaEvent_t event) {
    waitFor(comm, what, Clock::now(), [&] { return completed(event, what); }, /*bounded=*/false);
  }

  // A mismatch or a failed peer is reported asynchronously, after the stream has moved on.
  void checkAsyncError(ncclComm_t comm, const char* what, bool inProgressIsFine = false) {
    ncclResult_t async = ncclSuccess;
    gpuRuntime().commGetAsyncError(comm, &async);
    if (async == ncclSuccess || (inProgressIsFine && async == ncclInProgress)) return;
    abort(format("NCCL {} failed: {} ({})", what, gpuRuntime().ncclErrorString(async), gpuRuntime().ncclLastError(comm)));
    throwAborted();
  }

  // data = the sum over the ranks, queued on stream s: NCCL's all-reduce, or in tree order (Note
  // [Tree order over NCCL]). Returns the last NCCL call's status; one that returned ncclInProgress
  // before another call is waited for here, as the non-blocking communicator requires.
  ncclResult_t sumOverRanks(float* data, int64_t count, ncclComm_t comm, cudaStream_t s, const char* what) {
    GpuRuntime& runtime = gpuRuntime();
    if (!m_treeOrder) return runtime.allReduceSum(data, data, static_cast<size_t>(count), comm, s);
    const int ranks = size();
    float* scratch = scratchFor(static_cast<int64_t>(ranks) * count);
    ncclResult_t status = ncclSuccess;
    for (int root = 0; root < ranks; ++root) {
      if (status == ncclInProgress) waitFor(comm, what, Clock::now(), [&] { return ready(comm); });
      status = runtime.broadcast(data, scratch + static_cast<int64_t>(root) * count, static_cast<size_t>(count), root,
                                 comm, s);
      if (status != ncclSuccess && status != ncclInProgress) return status;
    }
    if (status == ncclInProgress) waitFor(comm, what, Clock::now(), [&] { return ready(comm); });
    launchTreeSum(data, scratch, ranks, count, s);
    return ncclSuccess;
  }

  // Device memory for `floats` gathered values. A smaller buffer made before stays allocated (a
  // collective queued on the communication stream may still use it) until the communicator goes.
  float* scratchFor(int64_t floats) {
    if (!m_scratch.empty() && m_scratch.back().second >= floats) return m_scratch.back().first;
    void* p = nullptr;
    NS_CUDA_CHECK(gpuRuntime().malloc(&p, static_cast<size_t>(floats) * sizeof(float)));
    m_scratch.emplace_back(static_cast<float*>(p), floats);
    return m_scratch.back().first;
  }

  // A bucket's gradients into its flat buffer (intoFlat) or the sums back, on stream s.
  static void copyPieces(std::span<const ReducePiece> pieces, float* flat, cudaStream_t s, bool intoFlat) {
    int64_t offset = 0;
    for (const ReducePiece& p : pieces) {
      if (p.count) {
        float* dst = intoFlat ? flat + offset : p.data;
        const float* src = intoFlat ? p.data : flat + offset;
        NS_CUDA_CHECK(gpuRuntime().memcpyAsync(dst, src, static_cast<size_t>(p.count) * sizeof(float),
                                               cudaMemcpyDeviceToDevice, s));
      }
      offset += p.count;
    }
  }

  // The timed event of `tag` in `events` (one per bucket), made on first use on this rank's GPU.
  cudaEvent_t timedEvent(std::vector<cudaEvent_t>& events, int tag) {
    std::lock_guard lock(m_queueMutex);
    if (events.size() <= static_cast<size_t>(tag)) events.resize(static_cast<size_t>(tag) + 1, nullptr);
    cudaEvent_t& e = events[static_cast<size_t>(tag)];
    if (!e) {
      m_device->makeCurrent();
      NS_CUDA_CHECK(gpuRuntime().eventCreateTimed(&e));
    }
    return e;
  }

  std::shared_ptr<NcclGroupState> m_shared;
  int m_local;  // this rank's index among its process's ranks (NcclGroupState's vectors)
  CudaDeviceContext* m_device = nullptr;
  cudaEvent_t m_ready = nullptr;
  cudaEvent_t m_done = nullptr;
  float* m_one = nullptr;  // the barrier's one-float buffer
  // Note [Queued collectives]: per bucket, the compute stream's mark and the collective's end.
  std::mutex m_queueMutex;  // the two lists and the iteration's record below
  std::vector<cudaEvent_t> m_marks, m_dones;
  std::vector<int> m_queued;  // tags queued since the last finishQueued, in order
  int m_marksThisIteration = 0;
  int m_firstMark = 0, m_lastMark = 0;
  bool m_treeOrder = false;  // Note [Tree order over NCCL]
  std::vector<std::pair<float*, int64_t>> m_scratch;  // gather buffers (device memory) and their floats
};

}  // namespace

std::unique_ptr<Communicator> makeNcclRank(std::shared_ptr<NcclGroupState> shared, int local) {
  return std::make_unique<NcclCommunicator>(std::move(shared), local);
}

void attachNcclRank(Communicator& rank, CudaDeviceContext& device) { static_cast<NcclCommunicator&>(rank).attach(device); }

}  // namespace netsmith::cuda
