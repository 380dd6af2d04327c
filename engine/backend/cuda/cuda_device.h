// CudaDeviceContext: one GPU worker's device state — the CUDA device, a compute stream and a
// communication stream, cuDNN and cuBLAS handles bound to the compute stream, the device memory
// pool and pinned staging memory (Note [Device memory], Note [Device pool]), a cuDNN workspace,
// the precision kernels compute in, and the GPU's utilization from NVML for the events.
//
// Threads: created on the worker's thread, which it binds to the device (cudaSetDevice); kernels
// are queued from that thread only. The host-view copies (upload/download) may also be called by
// the thread that owns the worker while it is idle: they bind that thread to the device first.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cuda/cuda_memory.h"
#include "engine/backend/cuda/precision_math.h"
#include "engine/core/device_context.h"
#include "engine/monitor/utilization_sampler.h"

namespace netsmith::cuda {

// config.precision; what each means for cuDNN, cuBLAS and loss scaling: Note [Precision]
// (precision_math.h).
using netsmith::parsePrecision;
using netsmith::precisionName;

struct CudaOptions {
  Precision precision = Precision::Float;
  bool deterministic = false;  // config.deterministic: deterministic algorithms only
};

// N of a device id "cuda:N"; throws Error naming the id when it is not one.
int cudaOrdinalOf(const std::string& id);

class CudaDeviceContext final : public DeviceContext {
 public:
  // id: "cuda:N", N the CUDA device ordinal. Throws Error saying what is missing when there is no
  // driver or no such device.
  CudaDeviceContext(std::string id, CudaOptions options = {});
  ~CudaDeviceContext() override;
  CudaDeviceContext(const CudaDeviceContext&) = delete;
  CudaDeviceContext& operator=(const CudaDeviceContext&) = delete;

  const std::string& backend() const override;
  const std::string& id() const override { return m_id; }
  void synchronize() override;
  // Seconds the GPU was busy (NVML utilization × wall time, integrated by a sampler thread: Note
  // [Sensors off the step], engine/monitor/utilization_sampler.h); 0 without NVML.
  double busySeconds() const override;
  // Temperature and power at the sampler's latest sample (NVML; none without it).
  DeviceSensors sensors() const override;
  std::optional<int64_t> memoryInUseBytes() const override;
  int parallelism() const override { return 1; }

  TensorAllocator* deviceAllocator() override { return &m_pool; }
  TensorAllocator* stagingAllocator() override { return &m_pinned; }
  void upload(float* dst, const float* src, int64_t n) override;
  void download(float* dst, const float* src, int64_t n) override;
  void queueDownload(float* dst, const float* src, int64_t n) override;
  void finishDownloads() override;
  int mark() override;
  void waitForMarks() override;
  double secondsBetween(int a, int b) override;
  void clearMarks() override { m_marksUsed = 0; }
  bool capturesGraphs() const override { return true; }
  void beginCapture() override;
  bool endCapture() override;
  void launchCaptured() override;
  uint64_t memoryGeneration() const override { return m_pool.generation() + m_pinned.generation(); }
  void copy(float* dst, const float* src, int64_t n) override;
  void fill(float* dst, int64_t n, float value) override;
  void accumulate(float* acc, const float* x, int64_t n) override;
  void scale(float* dst, const float* src, int64_t n, float s) override;
  void averageToward(float* average, const float* value, int64_t n, float decay, float weight, const int* skip) override;
  void exchange(float* a, float* b, int64_t n) override;
  // Note [16-bit activations]: gpuActivationStorage(precision) (engine/core/precision.h).
  Storage activationStorage() const override { return m_activationStorage; }
  // Note [Channels last]: gpuChannelsLast(activationStorage()).
  bool channelsLast() const override { return m_channelsLast; }
  void convert(Tensor& dst, const Tensor& src) override;
  void accumulateTensor(Tensor& acc, const Tensor& x) override;

  int ordinal() const { return m_ordinal; }
  const CudaOptions& options() const { return m_options; }
  cudaStream_t stream() const { return m_stream; }
  cudaStream_t commStream() const { return m_commStream; }
  // Null on a simulated GPU, whose kernels are the CPU backend's (Note [Simulated kernels]).
  cudnnHandle_t cudnn() const { return m_cudnn; }
  cublasHandle_t cublas() const { return m_cublas; }
  // A simulated GPU's CPU kernel context (one OpenMP thread, used on the compute stream's thread);
  // null on a real GPU.
  DeviceContext* hostKernelContext() { return m_hostKernels.get(); }
  DevicePool& pool() { return m_pool; }
  // A scratch buffer of at least `bytes` on the device, valid until the next call (cuDNN
  // workspaces); grows, never shrinks. Compute stream only.
  void* workspace(size_t bytes);
  // Binds the calling thread to this device.
  void makeCurrent() const;

 private:
  std::string m_id;
  int m_ordinal = 0;
  CudaOptions m_options;
  Storage m_activationStorage = Storage::Float32;
  bool m_channelsLast = false;
  cudaStream_t m_stream = nullptr;
  cudaStream_t m_commStream = nullptr;
  cudaEvent_t m_downloadsQueued = nullptr;  // recorded after each queueDownload()
  std::vector<cudaEvent_t> m_marks;  // timed events, reused from step to step (Note [Device-clock profile])
  int m_marksUsed = 0;
  cudaGraphExec_t m_graph = nullptr;  // the last capture (Note [CUDA graphs of a step])
  cudnnHandle_t m_cudnn = nullptr;
  cublasHandle_t m_cublas = nullptr;
  DevicePool m_pool;
  PinnedAllocator m_pinned;
  Tensor m_workspace;
  std::unique_ptr<DeviceContext> m_hostKernels;
  std::unique_ptr<UtilizationSampler> m_sampler;  // null without NVML
};

// The context a CUDA kernel was given (its backend is "cuda" by the registry's key).
inline CudaDeviceContext& cudaContext(DeviceContext& device) { return static_cast<CudaDeviceContext&>(device); }

// Number of CUDA devices the runtime sees; 0 without a driver (never throws). *why, when given,
// says why there are none.
int cudaDeviceCount(std::string* why = nullptr);

}  // namespace netsmith::cuda
