// GpuRuntime: the one narrow interface between the CUDA backend's host code and the CUDA runtime
// and NCCL (NVML goes through engine/monitor/nvml.h's nvml_abi::Api, which the simulator also
// supplies). Two implementations: the real libraries (cuda_runtime_real.cpp) and the simulated
// GPUs of engine/backend/cuda/sim/ (Note [Simulated GPUs]), chosen once per process by
// NETSMITH_SIMULATED_GPUS. Host code of the backend — device memory, copies, streams, events,
// NCCL, the solver's launches — calls only this; cuDNN and cuBLAS calls exist only in the real
// op kernels, which a simulated GPU replaces by the CPU kernels (sim/simulated_kernels.cpp).
//
// The signatures are the libraries' own (types from cuda_runtime.h and nccl.h), so the backend
// reads like CUDA code; a simulated stream, event or communicator is an object of the simulator
// behind the same opaque pointer types.
#pragma once

#include <algorithm>

#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace netsmith::cuda {

// What a kernel run by the simulator sees: device pointers turned into the host addresses behind
// them, each checked (live allocation of the stream's device, [p, p + bytes) inside it). A failed
// check throws; the simulator turns it into the device's sticky error naming the kernel.
class DeviceMemoryAccess {
 public:
  virtual ~DeviceMemoryAccess() = default;
  virtual void* hostAddress(const void* devicePointer, size_t bytes) = 0;
  template <typename T>
  T* at(T* devicePointer, int64_t count) {
    if (!devicePointer) return nullptr;
    return static_cast<T*>(hostAddress(devicePointer, static_cast<size_t>(count < 0 ? 0 : count) * sizeof(T)));
  }
};
using HostKernel = std::function<void(DeviceMemoryAccess&)>;

// What cudaGetDeviceProperties says of a GPU that the backend uses.
struct GpuProperties {
  std::string name;
  int computeCapability = 0;  // major * 10 + minor: 75 for Turing, 90 for Hopper
  size_t totalMemory = 0;     // bytes
};

class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;
  virtual bool simulated() const = 0;
  // "CUDA runtime" or "4 simulated GPUs (jitter on)": for messages and the devices note.
  virtual std::string description() const = 0;
  // More about the last failed call of this thread (the simulator says which pointer, which
  // allocation, which kernel); empty for the real runtime.
  virtual std::string lastErrorDetail() { return {}; }
  // The memory a device's CUDA context and the libraries' handles take before any tensor
  // (Note [Memory before launch], engine/train/memory_estimate.h): the simulator's own
  // reservation; for the real runtime kAssumedContextBytes.
  virtual size_t contextBytes() const = 0;

  // CUDA runtime. Streams are created non-blocking (cudaStreamNonBlocking) and events without
  // timing (cudaEventDisableTiming): the only kinds the backend uses.
  virtual cudaError_t getDeviceCount(int* count) = 0;
  virtual cudaError_t setDevice(int ordinal) = 0;
  virtual cudaError_t deviceGetPCIBusId(char* busId, int length, int ordinal) = 0;
  virtual cudaError_t deviceProperties(int ordinal, GpuProperties* properties) = 0;
  // cudaSuccess when this build's kernels load on the current device, cudaErrorNoKernelImageForDevice
  // when the build carries no code it can run (Note [CUDA architectures]).
  virtual cudaError_t kernelImageLoads() = 0;
  virtual cudaError_t memGetInfo(size_t* freeBytes, size_t* totalBytes) = 0;
  virtual cudaError_t malloc(void** pointer, size_t bytes) = 0;
  virtual cudaError_t free(void* pointer) = 0;
  virtual cudaError_t hostAlloc(void** pointer, size_t bytes) = 0;  // pinned, portable
  virtual cudaError_t freeHost(void* pointer) = 0;
  // Synchronous copy on the legacy default stream (which does not order non-blocking streams).
  virtual cudaError_t memcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) = 0;
  virtual cudaError_t memcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                                  cudaStream_t stream) = 0;
  virtual cudaError_t memsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) = 0;
  virtual cudaError_t streamCreate(cudaStream_t* stream) = 0;
  virtual cudaError_t streamDestroy(cudaStream_t stream) = 0;
  virtual cudaError_t streamSynchronize(cudaStream_t stream) = 0;
  virtual cudaError_t streamWaitEvent(cudaStream_t stream, cudaEvent_t event) = 0;
  virtual cudaError_t eventCreate(cudaEvent_t* event) = 0;
  // An event that keeps the device's time of completion (cudaEventDefault), for eventElapsedTime.
  virtual cudaError_t eventCreateTimed(cudaEvent_t* event) = 0;
  // Milliseconds between two completed timed events, on the device's clock.
  virtual cudaError_t eventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) = 0;
  virtual cudaError_t eventDestroy(cudaEvent_t event) = 0;
  virtual cudaError_t eventRecord(cudaEvent_t event, cudaStream_t stream) = 0;
  virtual cudaError_t eventQuery(cudaEvent_t event) = 0;
  // Blocks the calling thread until the event's latest recording has completed.
  virtual cudaError_t eventSynchronize(cudaEvent_t event) = 0;
  virtual cudaError_t deviceSynchronize() = 0;
  // CUDA graphs (Note [Simulated CUDA graphs] in sim/sim_graphs.cpp): a stream's work captured
  // (thread-local mode: the capturing thread may not make calls that wait or allocate) into a
  // graph, instantiated once and launched as one unit.
  virtual cudaError_t streamBeginCapture(cudaStream_t stream) = 0;
  virtual cudaError_t streamEndCapture(cudaStream_t stream, cudaGraph_t* graph) = 0;
  virtual cudaError_t graphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph) = 0;
  virtual cudaError_t graphLaunch(cudaGraphExec_t exec, cudaStream_t stream) = 0;
  virtual cudaError_t graphExecDestroy(cudaGraphExec_t exec) = 0;
  virtual cudaError_t graphDestroy(cudaGraph_t graph) = 0;
  // Returns and clears the last error of this thread (a launch's configuration error).
  virtual cudaError_t getLastError() = 0;
  virtual const char* errorName(cudaError_t status) = 0;
  virtual const char* errorString(cudaError_t status) = 0;
  // Note [Simulated kernels]: a kernel queued on `stream` that the simulator runs on the stream's
  // thread (the host loop over a kernel's __host__ __device__ body, or a CPU op kernel). The real
  // runtime never runs it: code launches its __global__ kernel when !simulated().
  virtual cudaError_t launchHost(cudaStream_t stream, const char* kernel, HostKernel body) = 0;

  // NCCL (Note [NCCL collectives] in engine/backend/cuda/nccl_group.h).
  virtual ncclResult_t getUniqueId(ncclUniqueId* id) = 0;
  virtual ncclResult_t commInitRank(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank, ncclConfig_t* config) = 0;
  virtual ncclResult_t groupStart() = 0;
  virtual ncclResult_t groupEnd() = 0;
  virtual ncclResult_t allReduceSum(const float* send, float* recv, size_t count, ncclComm_t comm,
                                    cudaStream_t stream) = 0;
  virtual ncclResult_t broadcast(const float* send, float* recv, size_t count, int root, ncclComm_t comm,
                                 cudaStream_t stream) = 0;
  virtual ncclResult_t commGetAsyncError(ncclComm_t comm, ncclResult_t* state) = 0;
  virtual ncclResult_t commAbort(ncclComm_t comm) = 0;
  virtual ncclResult_t commFinalize(ncclComm_t comm) = 0;
  virtual ncclResult_t commDestroy(ncclComm_t comm) = 0;
  virtual const char* ncclErrorString(ncclResult_t status) = 0;
  virtual std::string ncclLastError(ncclComm_t comm) = 0;
};

// Note [GPU numbering]: `cuda:N` is the CUDA runtime's ordinal N, the number training uses. The
// runtime numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID is set before its first
// call, so gpuRuntime() sets it (overriding the environment) before creating either runtime: with
// every GPU visible, cuda:N is then the GPU nvidia-smi (NVML, PCI bus order) shows as N.
// CUDA_VISIBLE_DEVICES selects and renumbers GPUs for the runtime but not for NVML (with
// CUDA_VISIBLE_DEVICES=2,3, cuda:0 is nvidia-smi's 2), so the device list (discoverDevices, from
// the kind's listDevices) and every NVML figure (CudaDeviceContext) join the two by PCI bus id,
// never by number.
//
// The runtime of this process: the simulator when NETSMITH_SIMULATED_GPUS is set (1 to 8; a
// bad value throws Error naming it), else the real libraries. Created on first use, kept to exit.
GpuRuntime& gpuRuntime();
// NETSMITH_SIMULATED_GPUS is set (valid or not: gpuRuntime() says what is wrong with it).
bool simulatedGpusRequested();

// A CUDA 13 context with cuBLAS, cuDNN and NCCL loaded lazily, as assumed before any device is
// touched. Not yet measured on a real GPU by this project (no machine was lent since this was
// written): tests/gpu/verify.sh prints the run's measured peak beside the plan's estimate.
inline constexpr size_t kAssumedContextBytes = size_t{512} << 20;
// The simulator's context: the real one's, or 1/32 of a small simulated GPU.
inline size_t simulatedContextBytes(int64_t memoryMb) {
  return std::min(kAssumedContextBytes, (static_cast<size_t>(memoryMb) << 20) / 32);
}

// The simulator (engine/backend/cuda/sim/); gpuRuntime() makes it when asked to.
struct SimulatorOptions {
  int devices = 1;
  bool jitter = false;
  uint64_t seed = 0;  // jitter's random stream; 0: from the clock
  int64_t memoryMb = 16384;
  int computeCapability = 90;  // NETSMITH_SIMULATED_GPU_ARCH ("8.6"): what the devices report
  // NETSMITH_SIMULATED_GPU_LAG_US: no stream operation starts sooner than this after it was
  // queued (the host runs that far ahead of the device); 0: as soon as the stream gets to it.
  std::chrono::microseconds lag{0};
  // NETSMITH_SIMULATED_GPU_ALLOC_SYNC=0 turns off: cudaMalloc waits for the device's queued work
  // and cudaHostAlloc for every device's, as CUDA's implicit synchronization allows them to.
  bool allocationsSynchronize = true;
  int ncclInitFailure = -1;  // NETSMITH_SIMULATED_NCCL_INIT_FAILS: this CUDA ordinal's NCCL start-up fails
  bool pciOrder = true;  // CUDA_DEVICE_ORDER=PCI_BUS_ID when the runtime starts
  // CUDA_VISIBLE_DEVICES when the runtime starts (absent: every device): indices in the runtime's
  // order, as CUDA reads them (Note [Simulated GPUs]).
  std::optional<std::string> visibleDevices;
};
GpuRuntime* makeSimulatedRuntime(const SimulatorOptions& options);
GpuRuntime* makeRealRuntime();

}  // namespace netsmith::cuda
