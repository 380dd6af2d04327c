// NcclGroup (nccl_communicator.h): starting the group's NCCL communicators together, and ending
// them — finalized when the run went well, aborted after a failure.
#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/nccl_rank.h"
#include "engine/core/hex.h"

namespace netsmith::cuda {

using Clock = std::chrono::steady_clock;

namespace {

// Waits until every rank's non-blocking communicator has finished starting, polling all of them
// together, at most `timeout` seconds in all: a rank that fails is named at once (not after the
// ranks before it have used up their own timeouts), and one that never finishes is named when the
// time is up. Throws Error; the caller aborts the communicators.
void waitAllReady(const std::vector<ncclComm_t>& comms, const std::vector<std::string>& names, double timeout) {
  GpuRuntime& runtime = gpuRuntime();
  const auto start = Clock::now();
  std::vector<char> ready(comms.size(), 0);
  for (int spins = 0;; ++spins) {
    size_t done = 0;
    for (size_t r = 0; r < comms.size(); ++r) {
      if (!ready[r]) {
        ncclResult_t state = ncclInProgress;
        NS_NCCL_CHECK(runtime.commGetAsyncError(comms[r], &state));
        NS_CHECK(state == ncclSuccess || state == ncclInProgress, "NCCL could not start on {}: {}: {}", names[r],
                 runtime.ncclErrorString(state), runtime.ncclLastError(comms[r]));
        ready[r] = state == ncclSuccess;
      }
      done += ready[r] ? 1 : 0;
    }
    if (done == comms.size()) return;
    if (std::chrono::duration<double>(Clock::now() - start).count() >= timeout) {
      std::string late;
      for (size_t r = 0; r < comms.size(); ++r)
        if (!ready[r]) late += (late.empty() ? "" : ", ") + names[r];
      NS_THROW("NCCL did not start on {} within {} s (parallel.timeout_s): a GPU that cannot reach the others "
               "(NCCL_DEBUG=INFO says why)",
               late, timeout);
    }
    if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
    else std::this_thread::yield();
  }
}

}  // namespace

std::string NcclGroup::newJobId() {
  ncclUniqueId uid;
  NS_NCCL_CHECK(gpuRuntime().getUniqueId(&uid));
  return bytesToHex(uid.internal, sizeof uid.internal);
}

NcclGroup::NcclGroup(const std::vector<std::string>& deviceIds, double timeoutSeconds)
    : NcclGroup(JobGroupPlacement{"", 0, deviceIds, deviceIds}, timeoutSeconds) {}

NcclGroup::NcclGroup(const JobGroupPlacement& placement, double timeoutSeconds)
    : m_shared(std::make_shared<Shared>()) {
  const std::vector<std::string>& deviceIds = placement.localIds;
  const int n = static_cast<int>(deviceIds.size());
  const int jobRanks = static_cast<int>(placement.jobDeviceIds.size());
  NS_CHECK(n >= 1, "NCCL needs at least one GPU");
  NS_CHECK(placement.firstRank >= 0 && placement.firstRank + n <= jobRanks,
           "NCCL ranks {} to {} of a job of {} (a bug)", placement.firstRank, placement.firstRank + n - 1, jobRanks);
  m_shared->names = placement.jobDeviceIds;
  m_shared->firstRank = placement.firstRank;
  m_shared->timeoutSeconds = timeoutSeconds;
  m_shared->calls = std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) m_shared->calls[static_cast<size_t>(r)] = 0;
  std::string why;
  const int count = cudaDeviceCount(&why);
  NS_CHECK(count > 0, "{} cannot be used: {}; check the NVIDIA driver (nvidia-smi), or use the CPU (--devices cpu:0)", deviceIds[0],
           why);
  for (const auto& id : deviceIds) {
    const int ordinal = cudaOrdinalOf(id);
    NS_CHECK(ordinal < count, "{} does not exist: the CUDA runtime sees {} GPU(s), cuda:0 to cuda:{}", id, count,
             count - 1);
    m_shared->ordinals.push_back(ordinal);
  }
  m_shared->comms.assign(static_cast<size_t>(n), nullptr);
  std::vector<std::string> localNames;
  for (int r = 0; r < n; ++r) localNames.push_back(placement.jobDeviceIds[static_cast<size_t>(placement.firstRank + r)]);
  GpuRuntime& runtime = gpuRuntime();
  try {
    ncclUniqueId uid;
    if (placement.jobId.empty()) NS_NCCL_CHECK(runtime.getUniqueId(&uid));
    else NS_CHECK(hexToBytes(placement.jobId, uid.internal, sizeof uid.internal),
                  "the job's NCCL id is not {} hexadecimal digits (a bug)", 2 * sizeof uid.internal);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    NS_NCCL_CHECK(runtime.groupStart());
    for (int r = 0; r < n; ++r) {
      NS_CUDA_CHECK(runtime.setDevice(m_shared->ordinals[static_cast<size_t>(r)]));
      NS_NCCL_CHECK(runtime.commInitRank(&m_shared->comms[static_cast<size_t>(r)], jobRanks, uid,
                                         placement.firstRank + r, &config));
    }
    NS_NCCL_CHECK(runtime.groupEnd());
    waitAllReady(m_shared->comms, localNames, timeoutSeconds);
  } catch (...) {
    // A communicator left alive keeps NCCL's threads (and a peer's init) waiting: abort them all.
    for (size_t r = 0; r < m_shared->comms.size(); ++r) {
      if (!m_shared->comms[r]) continue;
      runtime.setDevice(m_shared->ordinals[r]);
      runtime.commAbort(m_shared->comms[r]);
      m_shared->comms[r] = nullptr;
    }
    throw;
  }
  for (int r = 0; r < n; ++r) m_ranks.push_back(makeNcclRank(m_shared, r));
}

NcclGroup::~NcclGroup() {
  m_ranks.clear();
  for (size_t r = 0; r < m_shared->comms.size(); ++r) {
    ncclComm_t comm = m_shared->comms[r];
    if (!comm) continue;
    GpuRuntime& runtime = gpuRuntime();
    runtime.setDevice(m_shared->ordinals[r]);
    if (m_shared->aborted.load()) {
      runtime.commAbort(comm);
    } else {
      // Non-blocking: finalize may return ncclInProgress; wait (bounded) before destroying.
      if (runtime.commFinalize(comm) == ncclInProgress) {
        ncclResult_t state = ncclInProgress;
        const auto start = Clock::now();
        while (state == ncclInProgress &&
               std::chrono::duration<double>(Clock::now() - start).count() < m_shared->timeoutSeconds) {
          runtime.commGetAsyncError(comm, &state);
          std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        if (state != ncclSuccess) {
          runtime.commAbort(comm);
          continue;
        }
      }
      runtime.commDestroy(comm);
    }
  }
}

void NcclGroup::endAfterFailure() {
  if (!m_shared->aborted.load()) return;
  GpuRuntime& runtime = gpuRuntime();
  for (size_t r = 0; r < m_shared->comms.size(); ++r) {
    ncclComm_t comm = nullptr;
    {
      std::lock_guard lock(m_shared->mutex);
      comm = std::exchange(m_shared->comms[r], nullptr);
    }
    if (!comm) continue;
    runtime.setDevice(m_shared->ordinals[r]);
    runtime.commAbort(comm);
  }
}

int NcclGroup::size() const { return static_cast<int>(m_ranks.size()); }

Communicator& NcclGroup::communicator(int rank) { return *m_ranks.at(static_cast<size_t>(rank)); }

void NcclGroup::attach(int rank, CudaDeviceContext& device) {
  NS_CHECK(device.ordinal() == m_shared->ordinals.at(static_cast<size_t>(rank)),
           "NCCL rank {} is {}, but the worker's device is {}", rank, m_shared->names[static_cast<size_t>(rank)],
           device.id());
  attachNcclRank(*m_ranks.at(static_cast<size_t>(rank)), device);
}

}  // namespace netsmith::cuda
