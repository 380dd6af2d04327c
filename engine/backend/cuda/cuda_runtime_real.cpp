// The real CUDA runtime and NCCL behind GpuRuntime: each method is the library call of its name.
#include <cuda_runtime.h>
#include <nccl.h>

#include "engine/backend/cuda/gpu_runtime.h"

namespace netsmith::cuda {

cudaError_t probeKernelImage();  // kernel_image_probe.cu

namespace {

class RealRuntime final : public GpuRuntime {
 public:
  bool simulated() const override { return false; }
  std::string description() const override { return "CUDA runtime"; }

  cudaError_t getDeviceCount(int* count) override { return cudaGetDeviceCount(count); }
  cudaError_t setDevice(int ordinal) override { return cudaSetDevice(ordinal); }
  cudaError_t deviceGetPCIBusId(char* busId, int length, int ordinal) override {
    return cudaDeviceGetPCIBusId(busId, length, ordinal);
  }
  cudaError_t deviceProperties(int ordinal, GpuProperties* properties) override {
    cudaDeviceProp prop{};
    const cudaError_t status = cudaGetDeviceProperties(&prop, ordinal);
    if (status != cudaSuccess) return status;
    properties->name = prop.name;
    properties->computeCapability = prop.major * 10 + prop.minor;
    properties->totalMemory = prop.totalGlobalMem;
    return cudaSuccess;
  }
  cudaError_t kernelImageLoads() override { return probeKernelImage(); }
  cudaError_t memGetInfo(size_t* freeBytes, size_t* totalBytes) override { return cudaMemGetInfo(freeBytes, totalBytes); }
  size_t contextBytes() const override { return kAssumedContextBytes; }
  cudaError_t malloc(void** pointer, size_t bytes) override { return cudaMalloc(pointer, bytes); }
  cudaError_t free(void* pointer) override { return cudaFree(pointer); }
  cudaError_t hostAlloc(void** pointer, size_t bytes) override {
    return cudaHostAlloc(pointer, bytes, cudaHostAllocPortable);
  }
  cudaError_t freeHost(void* pointer) override { return cudaFreeHost(pointer); }
  cudaError_t memcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) override {
    return cudaMemcpy(dst, src, bytes, kind);
  }
  cudaError_t memcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) override {
    return cudaMemcpyAsync(dst, src, bytes, kind, stream);
  }
  cudaError_t memsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) override {
    return cudaMemsetAsync(dst, value, bytes, stream);
  }
  cudaError_t streamCreate(cudaStream_t* stream) override {
    return cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking);
  }
  cudaError_t streamDestroy(cudaStream_t stream) override { return cudaStreamDestroy(stream); }
  cudaError_t streamSynchronize(cudaStream_t stream) override { return cudaStreamSynchronize(stream); }
  cudaError_t streamWaitEvent(cudaStream_t stream, cudaEvent_t event) override {
    return cudaStreamWaitEvent(stream, event, 0);
  }
  cudaError_t eventCreate(cudaEvent_t* event) override {
    return cudaEventCreateWithFlags(event, cudaEventDisableTiming);
  }
  cudaError_t eventCreateTimed(cudaEvent_t* event) override { return cudaEventCreateWithFlags(event, cudaEventDefault); }
  cudaError_t eventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) override {
    return cudaEventElapsedTime(ms, start, end);
  }
  cudaError_t eventDestroy(cudaEvent_t event) override { return cudaEventDestroy(event); }
  cudaError_t eventRecord(cudaEvent_t event, cudaStream_t stream) override { return cudaEventRecord(event, stream); }
  cudaError_t eventQuery(cudaEvent_t event) override { return cudaEventQuery(event); }
  cudaError_t eventSynchronize(cudaEvent_t event) override { return cudaEventSynchronize(event); }
  cudaError_t streamBeginCapture(cudaStream_t stream) override {
    return cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  }
  cudaError_t streamEndCapture(cudaStream_t stream, cudaGraph_t* graph) override { return cudaStreamEndCapture(stream, graph); }
  cudaError_t graphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph) override {
    return cudaGraphInstantiate(exec, graph, 0);
  }
  cudaError_t graphLaunch(cudaGraphExec_t exec, cudaStream_t stream) override { return cudaGraphLaunch(exec, stream); }
  cudaError_t graphExecDestroy(cudaGraphExec_t exec) override { return cudaGraphExecDestroy(exec); }
  cudaError_t graphDestroy(cudaGraph_t graph) override { return cudaGraphDestroy(graph); }
  cudaError_t deviceSynchronize() override { return cudaDeviceSynchronize(); }
  cudaError_t getLastError() override { return cudaGetLastError(); }
  const char* errorName(cudaError_t status) override { return cudaGetErrorName(status); }
  const char* errorString(cudaError_t status) override { return cudaGetErrorString(status); }
  cudaError_t launchHost(cudaStream_t, const char*, HostKernel) override { return cudaErrorNotSupported; }

  ncclResult_t getUniqueId(ncclUniqueId* id) override { return ncclGetUniqueId(id); }
  ncclResult_t commInitRank(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank, ncclConfig_t* config) override {
    return ncclCommInitRankConfig(comm, ranks, id, rank, config);
  }
  ncclResult_t groupStart() override { return ncclGroupStart(); }
  ncclResult_t groupEnd() override { return ncclGroupEnd(); }
  ncclResult_t allReduceSum(const float* send, float* recv, size_t count, ncclComm_t comm,
                            cudaStream_t stream) override {
    return ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream);
  }
  ncclResult_t broadcast(const float* send, float* recv, size_t count, int root, ncclComm_t comm,
                         cudaStream_t stream) override {
    return ncclBroadcast(send, recv, count, ncclFloat, root, comm, stream);
  }
  ncclResult_t commGetAsyncError(ncclComm_t comm, ncclResult_t* state) override {
    return ncclCommGetAsyncError(comm, state);
  }
  ncclResult_t commAbort(ncclComm_t comm) override { return ncclCommAbort(comm); }
  ncclResult_t commFinalize(ncclComm_t comm) override { return ncclCommFinalize(comm); }
  ncclResult_t commDestroy(ncclComm_t comm) override { return ncclCommDestroy(comm); }
  const char* ncclErrorString(ncclResult_t status) override { return ncclGetErrorString(status); }
  std::string ncclLastError(ncclComm_t comm) override {
    const char* text = ncclGetLastError(comm);
    return text ? text : "";
  }
};

}  // namespace

GpuRuntime* makeRealRuntime() { return new RealRuntime(); }

}  // namespace netsmith::cuda
