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

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <functional>
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

class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;
  virtual bool simulated() const = 0;
  // "CUDA runtime" or "4 simulated GPUs (jitter on)": for messages and the devices note.
  virtual std::string description() const = 0;
  // More about the last failed call of this thread (the simulator says which pointer, which
  // allocation, which kernel); empty for the real runtime.
  virtual std::string lastErrorDetail() { return {}; }

  // CUDA runtime. Streams are created non-blocking (cudaStreamNonBlocking) and events without
  // timing (cudaEventDisableTiming): the only kinds the backend uses.
  virtual cudaError_t getDeviceCount(int* count) = 0;
  virtual cudaError_t setDevice(int ordinal) = 0;
  virtual cudaError_t deviceGetPCIBusId(char* busId, int length, int ordinal) = 0;
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
  virtual cudaError_t eventDestroy(cudaEvent_t event) = 0;
  virtual cudaError_t eventRecord(cudaEvent_t event, cudaStream_t stream) = 0;
  virtual cudaError_t eventQuery(cudaEvent_t event) = 0;
  virtual cudaError_t deviceSynchronize() = 0;
  // Returns and clears the last error of this thread (a launch's configuration error).
  virtual cudaError_t getLastError() = 0;
  virtual const char* errorName(cudaError_t status) = 0;
  virtual const char* errorString(cudaError_t status) = 0;
  // Note [Simulated kernels]: a kernel queued on `stream` that the simulator runs on the stream's
  // thread (the host loop over a kernel's __host__ __device__ body, or a CPU op kernel). The real
  // runtime never runs it: code launches its __global__ kernel when !simulated().
  virtual cudaError_t launchHost(cudaStream_t stream, const char* kernel, HostKernel body) = 0;

  // NCCL (Note [NCCL collectives] in engine/comm/nccl_communicator.h).
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

// Note [GPU numbering]: `cuda:N` is the GPU that nvidia-smi (NVML, PCI bus order) shows as N. The
// CUDA runtime numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID is set before its
// first call, so gpuRuntime() sets it (overriding the environment) before creating either
// runtime; CUDA_VISIBLE_DEVICES, when set, still selects and renumbers the visible GPUs, and NVML
// figures are matched by PCI bus id (CudaDeviceContext), never by ordinal.
//
// The runtime of this process: the simulator when NETSMITH_SIMULATED_GPUS is set (1 to 8; a
// bad value throws Error naming it), else the real libraries. Created on first use, kept to exit.
GpuRuntime& gpuRuntime();
// NETSMITH_SIMULATED_GPUS is set (valid or not: gpuRuntime() says what is wrong with it).
bool simulatedGpusRequested();

// The simulator (engine/backend/cuda/sim/); gpuRuntime() makes it when asked to.
struct SimulatorOptions {
  int devices = 1;
  bool jitter = false;
  uint64_t seed = 0;  // jitter's random stream; 0: from the clock
  int64_t memoryMb = 16384;
  bool pciOrder = true;  // CUDA_DEVICE_ORDER=PCI_BUS_ID when the runtime starts
};
GpuRuntime* makeSimulatedRuntime(const SimulatorOptions& options);
GpuRuntime* makeRealRuntime();

}  // namespace netsmith::cuda
