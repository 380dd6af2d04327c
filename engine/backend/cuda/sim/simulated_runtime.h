// SimulatedRuntime: GpuRuntime over simulated GPUs (Note [Simulated GPUs] in
// simulated_runtime.cpp). The CUDA half is simulated_runtime.cpp, the NCCL half sim_nccl.cpp, the
// NVML entry points sim_nvml.cpp.
#pragma once

#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/backend/cuda/gpu_runtime.h"
#include "engine/backend/cuda/sim/sim_core.h"
#include "engine/backend/cuda/sim/sim_nccl.h"

namespace netsmith::cuda::sim {

class SimulatedRuntime final : public GpuRuntime {
 public:
  explicit SimulatedRuntime(const SimulatorOptions& options);
  ~SimulatedRuntime() override;

  bool simulated() const override { return true; }
  std::string description() const override;
  std::string lastErrorDetail() override;

  cudaError_t getDeviceCount(int* count) override;
  cudaError_t setDevice(int ordinal) override;
  cudaError_t deviceGetPCIBusId(char* busId, int length, int ordinal) override;
  cudaError_t deviceProperties(int ordinal, GpuProperties* properties) override;
  cudaError_t kernelImageLoads() override;
  cudaError_t memGetInfo(size_t* freeBytes, size_t* totalBytes) override;
  size_t contextBytes() const override { return simulatedContextBytes(m_options.memoryMb); }
  cudaError_t malloc(void** pointer, size_t bytes) override;
  cudaError_t free(void* pointer) override;
  cudaError_t hostAlloc(void** pointer, size_t bytes) override;
  cudaError_t freeHost(void* pointer) override;
  cudaError_t memcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) override;
  cudaError_t memcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) override;
  cudaError_t memsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) override;
  cudaError_t streamCreate(cudaStream_t* stream) override;
  cudaError_t streamDestroy(cudaStream_t stream) override;
  cudaError_t streamSynchronize(cudaStream_t stream) override;
  cudaError_t streamWaitEvent(cudaStream_t stream, cudaEvent_t event) override;
  cudaError_t eventCreate(cudaEvent_t* event) override;
  cudaError_t eventCreateTimed(cudaEvent_t* event) override;
  cudaError_t eventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) override;
  cudaError_t eventDestroy(cudaEvent_t event) override;
  cudaError_t eventRecord(cudaEvent_t event, cudaStream_t stream) override;
  cudaError_t eventQuery(cudaEvent_t event) override;
  cudaError_t eventSynchronize(cudaEvent_t event) override;
  cudaError_t streamBeginCapture(cudaStream_t stream) override;
  cudaError_t streamEndCapture(cudaStream_t stream, cudaGraph_t* graph) override;
  cudaError_t graphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph) override;
  cudaError_t graphLaunch(cudaGraphExec_t exec, cudaStream_t stream) override;
  cudaError_t graphExecDestroy(cudaGraphExec_t exec) override;
  cudaError_t graphDestroy(cudaGraph_t graph) override;
  cudaError_t deviceSynchronize() override;
  cudaError_t getLastError() override;
  const char* errorName(cudaError_t status) override;
  const char* errorString(cudaError_t status) override;
  cudaError_t launchHost(cudaStream_t stream, const char* kernel, HostKernel body) override;

  ncclResult_t getUniqueId(ncclUniqueId* id) override { return m_nccl.getUniqueId(id); }
  ncclResult_t commInitRank(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank, ncclConfig_t* config) override;
  ncclResult_t groupStart() override { return m_nccl.groupStart(); }
  ncclResult_t groupEnd() override { return m_nccl.groupEnd(); }
  ncclResult_t allReduceSum(const float* send, float* recv, size_t count, ncclComm_t comm,
                            cudaStream_t stream) override;
  ncclResult_t broadcast(const float* send, float* recv, size_t count, int root, ncclComm_t comm,
                         cudaStream_t stream) override;
  ncclResult_t commGetAsyncError(ncclComm_t comm, ncclResult_t* state) override {
    return m_nccl.commGetAsyncError(comm, state);
  }
  ncclResult_t commAbort(ncclComm_t comm) override { return m_nccl.commAbort(comm); }
  ncclResult_t commFinalize(ncclComm_t comm) override { return m_nccl.commFinalize(comm); }
  ncclResult_t commDestroy(ncclComm_t comm) override { return m_nccl.commDestroy(comm); }
  const char* ncclErrorString(ncclResult_t status) override;
  std::string ncclLastError(ncclComm_t comm) override { return m_nccl.lastError(comm); }

  // For the simulator's NVML (sim_nvml.cpp) and tests: every device in PCI bus order, visible to
  // the CUDA runtime or not (NVML ignores CUDA_VISIBLE_DEVICES).
  int deviceCount() const { return static_cast<int>(m_devices.size()); }
  // The devices the CUDA runtime numbers (after CUDA_VISIBLE_DEVICES).
  int visibleCount() const { return static_cast<int>(m_ordinalToPci.size()); }
  Device& deviceByPciIndex(int index) { return *m_devices.at(static_cast<size_t>(index)); }
  // The CUDA ordinal's device (the runtime's order: PCI bus order, or the driver's).
  Device* deviceByOrdinal(int ordinal);
  // The calling thread's device (cudaSetDevice; cuda:0 until then).
  Device& currentDevice();
  // The stream behind a handle; null, with the thread's error cudaErrorInvalidResourceHandle and
  // its detail set, when it is not live.
  Stream* stream(cudaStream_t handle, const char* call);
  // The device whose memory `p` is, or null.
  Device* deviceOf(const void* p);
  // Sets this thread's error detail and returns `status`.
  cudaError_t fail(cudaError_t status, std::string detail);
  // Note [Simulated CUDA graphs]: `call`, made on this thread while it captures a stream, cannot
  // be captured: the capture is invalidated and the call fails (cudaErrorStreamCaptureUnsupported).
  // cudaSuccess when the thread captures nothing.
  cudaError_t refuseDuringCapture(const char* call);
  // The stream this thread is capturing, or null.
  static Stream* capturingStream();
  uint64_t nextStreamSeed();

 private:
  cudaError_t checkDevice(Device& device);
  // Classifies one side of a copy; returns the host address to use now (host memory) or null
  // (device memory: translate on the stream).
  cudaError_t enqueueCopy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, Stream& stream,
                          const char* call, bool synchronous);
  Stream& legacyStream(Device& device);
  // The live streams of `device` (not its legacy stream).
  std::vector<Stream*> streamsOf(const Device& device);
  // Waits until everything queued on the device (its streams and its legacy default stream) has run.
  void drain(Device& device);
  // The implicit synchronization of cudaMalloc (this device) and cudaHostAlloc (every device).
  void allocationSynchronizes(Device* device);

  SimulatorOptions m_options;
  std::vector<std::unique_ptr<Device>> m_devices;  // PCI bus order
  std::vector<int> m_ordinalToPci;                 // the runtime's numbering of the visible devices
  std::mutex m_mutex;
  std::mt19937_64 m_allocationRandom;  // jitter's allocation times, under m_mutex
  std::set<void*> m_streams;  // live stream handles (Stream*)
  std::set<void*> m_events;   // live event handles (Event*)
  std::set<void*> m_pinned;
  std::set<void*> m_graphs;  // live graphs and instantiated graphs (Note [Simulated CUDA graphs])
  uint64_t m_streamCount = 0;
  SimNccl m_nccl;
};

}  // namespace netsmith::cuda::sim
