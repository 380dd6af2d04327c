#include "engine/comm/nccl_communicator.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_device.h"

#define NS_NCCL_CHECK(call)                                                                                       \
  do {                                                                                                            \
    const ncclResult_t ns_status_ = (call);                                                                       \
    if (ns_status_ != ncclSuccess && ns_status_ != ncclInProgress)                                                \
      NS_THROW("NCCL error {} in {} at {}:{}: {}", ncclGetErrorString(ns_status_), #call, __FILE__, __LINE__,    \
               ncclGetLastError(nullptr));                                                                        \
  } while (false)

namespace netsmith::cuda {

using Clock = std::chrono::steady_clock;

struct NcclGroup::Shared {
  std::vector<std::string> names;
  std::vector<int> ordinals;
  double timeoutSeconds = 60;
  std::vector<ncclComm_t> comms;
  std::unique_ptr<std::atomic<int64_t>[]> calls;  // collectives started, per rank
  std::mutex mutex;
  std::atomic<bool> aborted{false};
  std::string abortMessage;  // guarded by mutex; the first reason wins
  int culprit = -1;

  void abortWith(const std::string& message, int rank) {
    std::lock_guard lock(mutex);
    if (aborted.load()) return;
    abortMessage = message;
    culprit = rank;
    aborted.store(true);
  }
};

namespace {

int ordinalOf(const std::string& id) {
  NS_CHECK(id.rfind("cuda:", 0) == 0 && id.size() > 5, "\"{}\" is not a CUDA device id: expected cuda:N", id);
  return std::stoi(id.substr(5));
}

// Waits for a non-blocking communicator's last call to leave ncclInProgress.
void waitReady(ncclComm_t comm, const std::string& name) {
  ncclResult_t state = ncclInProgress;
  while (state == ncclInProgress) {
    NS_NCCL_CHECK(ncclCommGetAsyncError(comm, &state));
    if (state == ncclInProgress) std::this_thread::yield();
  }
  NS_CHECK(state == ncclSuccess, "NCCL on {}: {}", name, ncclGetErrorString(state));
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(std::shared_ptr<NcclGroup::Shared> shared, int rank) : m_shared(std::move(shared)), m_rank(rank) {}
  ~NcclCommunicator() override {
    if (m_ready) cudaEventDestroy(m_ready);
    if (m_done) cudaEventDestroy(m_done);
    if (m_one) cudaFree(m_one);
  }

  int rank() const override { return m_rank; }
  int size() const override { return static_cast<int>(m_shared->names.size()); }
  const std::string& deviceName(int rank) const override { return m_shared->names.at(static_cast<size_t>(rank)); }

  void attach(CudaDeviceContext& device) {
    m_device = &device;
    device.makeCurrent();
    NS_CUDA_CHECK(cudaEventCreateWithFlags(&m_ready, cudaEventDisableTiming));
    NS_CUDA_CHECK(cudaEventCreateWithFlags(&m_done, cudaEventDisableTiming));
    NS_CUDA_CHECK(cudaMalloc(&m_one, sizeof(float)));
  }

  void allReduceSum(float* data, int64_t count) override {
    run("all-reduce", [&](ncclComm_t comm, cudaStream_t s) {
      return ncclAllReduce(data, data, static_cast<size_t>(count), ncclFloat, ncclSum, comm, s);
    });
  }
  void broadcast(float* data, int64_t count, int root) override {
    run("broadcast", [&](ncclComm_t comm, cudaStream_t s) {
      return ncclBroadcast(data, data, static_cast<size_t>(count), ncclFloat, root, comm, s);
    });
  }
  void barrier() override {
    run("barrier", [&](ncclComm_t comm, cudaStream_t s) {
      return ncclAllReduce(m_one, m_one, 1, ncclFloat, ncclSum, comm, s);
    });
  }
  void abort(const std::string& reason) override {
    m_shared->abortWith(format("{} failed: {}", deviceName(m_rank), reason), m_rank);
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

  void abortComm() {
    std::lock_guard lock(m_shared->mutex);
    ncclComm_t& comm = m_shared->comms[static_cast<size_t>(m_rank)];
    if (comm) {
      ncclCommAbort(comm);
      comm = nullptr;
    }
  }

  // The rank that has started the fewest collectives: the one the others wait for.
  int lateRank() const {
    int late = -1;
    int64_t fewest = 0;
    for (int r = 0; r < size(); ++r) {
      const int64_t c = m_shared->calls[static_cast<size_t>(r)].load();
      if (late < 0 || c < fewest) late = r, fewest = c;
    }
    return late;
  }

  template <typename Call>
  void run(const char* what, Call&& call) {
    NS_CHECK(m_device, "{}: the NCCL communicator of rank {} has no device attached (a bug)", deviceName(m_rank),
             m_rank);
    if (m_shared->aborted.load()) throwAborted();
    m_shared->calls[static_cast<size_t>(m_rank)].fetch_add(1);
    m_device->makeCurrent();
    ncclComm_t comm = m_shared->comms[static_cast<size_t>(m_rank)];
    const cudaStream_t commStream = m_device->commStream();
    NS_CUDA_CHECK(cudaEventRecord(m_ready, m_device->stream()));
    NS_CUDA_CHECK(cudaStreamWaitEvent(commStream, m_ready, 0));
    const ncclResult_t queued = call(comm, commStream);
    if (queued != ncclSuccess && queued != ncclInProgress) {
      abort(format("NCCL {} failed: {} ({})", what, ncclGetErrorString(queued), ncclGetLastError(comm)));
      throwAborted();
    }
    NS_CUDA_CHECK(cudaEventRecord(m_done, commStream));
    const auto start = Clock::now();
    for (int spins = 0;; ++spins) {
      const cudaError_t state = cudaEventQuery(m_done);
      if (state == cudaSuccess) break;
      if (state != cudaErrorNotReady) {
        abort(format("CUDA error {} while waiting for the NCCL {}", cudaGetErrorName(state), what));
        throwAborted();
      }
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        abort(format("NCCL {} failed: {}", what, ncclGetErrorString(async)));
        throwAborted();
      }
      if (m_shared->aborted.load()) throwAborted();
      const double waited = std::chrono::duration<double>(Clock::now() - start).count();
      if (waited > m_shared->timeoutSeconds) {
        const int late = lateRank();
        m_shared->abortWith(format("{} did not reach the {} within {} s (NCCL collective aborted)", deviceName(late),
                                   what, m_shared->timeoutSeconds),
                            late);
        throwAborted();
      }
      if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    // The optimizer, queued next on the compute stream, reads the sums.
    NS_CUDA_CHECK(cudaStreamWaitEvent(m_device->stream(), m_done, 0));
  }

  std::shared_ptr<NcclGroup::Shared> m_shared;
  int m_rank;
  CudaDeviceContext* m_device = nullptr;
  cudaEvent_t m_ready = nullptr;
  cudaEvent_t m_done = nullptr;
  float* m_one = nullptr;  // the barrier's one-float buffer
};

}  // namespace

NcclGroup::NcclGroup(const std::vector<std::string>& deviceIds, double timeoutSeconds)
    : m_shared(std::make_shared<Shared>()) {
  const int n = static_cast<int>(deviceIds.size());
  NS_CHECK(n >= 1, "NCCL needs at least one GPU");
  m_shared->names = deviceIds;
  m_shared->timeoutSeconds = timeoutSeconds;
  m_shared->calls = std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) m_shared->calls[static_cast<size_t>(r)] = 0;
  std::string why;
  const int count = cudaDeviceCount(&why);
  NS_CHECK(count > 0, "{} cannot be used: {}; check the NVIDIA driver (nvidia-smi) or train on cpu:0", deviceIds[0],
           why);
  for (const auto& id : deviceIds) {
    const int ordinal = ordinalOf(id);
    NS_CHECK(ordinal < count, "{} does not exist: the CUDA runtime sees {} GPU(s), cuda:0 to cuda:{}", id, count,
             count - 1);
    m_shared->ordinals.push_back(ordinal);
  }
  m_shared->comms.assign(static_cast<size_t>(n), nullptr);
  ncclUniqueId uid;
  NS_NCCL_CHECK(ncclGetUniqueId(&uid));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  NS_NCCL_CHECK(ncclGroupStart());
  for (int r = 0; r < n; ++r) {
    NS_CUDA_CHECK(cudaSetDevice(m_shared->ordinals[static_cast<size_t>(r)]));
    NS_NCCL_CHECK(ncclCommInitRankConfig(&m_shared->comms[static_cast<size_t>(r)], n, uid, r, &config));
  }
  NS_NCCL_CHECK(ncclGroupEnd());
  for (int r = 0; r < n; ++r) waitReady(m_shared->comms[static_cast<size_t>(r)], deviceIds[static_cast<size_t>(r)]);
  for (int r = 0; r < n; ++r) m_ranks.push_back(std::make_unique<NcclCommunicator>(m_shared, r));
}

NcclGroup::~NcclGroup() {
  m_ranks.clear();
  for (size_t r = 0; r < m_shared->comms.size(); ++r) {
    ncclComm_t comm = m_shared->comms[r];
    if (!comm) continue;
    cudaSetDevice(m_shared->ordinals[r]);
    if (m_shared->aborted.load()) {
      ncclCommAbort(comm);
    } else {
      // Non-blocking: finalize may return ncclInProgress; wait (bounded) before destroying.
      if (ncclCommFinalize(comm) == ncclInProgress) {
        ncclResult_t state = ncclInProgress;
        const auto start = Clock::now();
        while (state == ncclInProgress &&
               std::chrono::duration<double>(Clock::now() - start).count() < m_shared->timeoutSeconds)
          ncclCommGetAsyncError(comm, &state);
        if (state != ncclSuccess) {
          ncclCommAbort(comm);
          continue;
        }
      }
      ncclCommDestroy(comm);
    }
  }
}

int NcclGroup::size() const { return static_cast<int>(m_ranks.size()); }

Communicator& NcclGroup::communicator(int rank) { return *m_ranks.at(static_cast<size_t>(rank)); }

void NcclGroup::attach(int rank, CudaDeviceContext& device) {
  NS_CHECK(device.ordinal() == m_shared->ordinals.at(static_cast<size_t>(rank)),
           "NCCL rank {} is {}, but the worker's device is {}", rank, m_shared->names[static_cast<size_t>(rank)],
           device.id());
  static_cast<NcclCommunicator&>(*m_ranks.at(static_cast<size_t>(rank))).attach(device);
}

}  // namespace netsmith::cuda
