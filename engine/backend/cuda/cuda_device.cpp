#include "engine/backend/cuda/cuda_device.h"

#include <cstdio>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/cuda/cuda_architectures.h"
#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_launch.h"
#include "engine/monitor/nvml.h"

namespace netsmith::cuda {
int cudaDeviceCount(std::string* why) {
  int count = 0;
  GpuRuntime* runtime = nullptr;
  try {
    runtime = &gpuRuntime();
  } catch (const Error& e) {
    if (why) *why = e.what();
    return 0;
  }
  const cudaError_t status = runtime->getDeviceCount(&count);
  if (status != cudaSuccess) {
    runtime->getLastError();
    if (why)
      *why = format("the CUDA runtime reports {} ({})", runtime->errorName(status), runtime->errorString(status));
    return 0;
  }
  if (count == 0 && why) *why = "the CUDA runtime sees no GPU";
  return count;
}

int cudaOrdinalOf(const std::string& id) {
  const auto colon = id.find(':');
  NS_CHECK(id.substr(0, colon) == "cuda" && colon != std::string::npos && colon + 1 < id.size(),
           "\"{}\" is not a CUDA device id: expected cuda:N", id);
  return std::stoi(id.substr(colon + 1));
}

CudaDeviceContext::CudaDeviceContext(std::string id, CudaOptions options)
    : m_id(std::move(id)), m_ordinal(cudaOrdinalOf(m_id)), m_options(options), m_pool(m_ordinal), m_workspace(&m_pool) {
  std::string why;
  const int count = cudaDeviceCount(&why);
  NS_CHECK(count > 0, "{} cannot be used: {}; check the NVIDIA driver (nvidia-smi), or use the CPU (--devices cpu:0)", m_id, why);
  NS_CHECK(m_ordinal < count, "{} does not exist: the CUDA runtime sees {} GPU(s), cuda:0 to cuda:{}", m_id, count,
           count - 1);
  GpuRuntime& runtime = gpuRuntime();
  makeCurrent();
  // Note [CUDA architectures]: a GPU this build has no code for is named with what to rebuild
  // with, here, instead of cudaErrorNoKernelImageForDevice at the first kernel.
  GpuProperties properties;
  NS_CUDA_CHECK(runtime.deviceProperties(m_ordinal, &properties));
  if (runtime.kernelImageLoads() != cudaSuccess) {
    runtime.getLastError();
    NS_THROW("{}", noKernelImageMessage(m_id, properties.name, properties.computeCapability, builtArchitectures()));
  }
  NS_CUDA_CHECK(runtime.streamCreate(&m_stream));
  NS_CUDA_CHECK(runtime.streamCreate(&m_commStream));
  NS_CUDA_CHECK(runtime.eventCreate(&m_downloadsQueued));
  m_activationStorage = gpuActivationStorage(options.precision);
  m_channelsLast = gpuChannelsLast(m_activationStorage);
  if (runtime.simulated()) {
    // Note [Simulated kernels]: the CPU kernels, on the compute stream's thread.
    m_hostKernels = std::make_unique<CpuDeviceContext>(m_id + " (CPU kernels)", 1);
  } else {
    NS_CUDNN_CHECK(cudnnCreate(&m_cudnn));
    NS_CUDNN_CHECK(cudnnSetStream(m_cudnn, m_stream));
    NS_CUBLAS_CHECK(cublasCreate(&m_cublas));
    NS_CUBLAS_CHECK(cublasSetStream(m_cublas, m_stream));
    NS_CUBLAS_CHECK(cublasSetMathMode(m_cublas, precisionMath(options.precision).cublasMode));
  }
  // NVML numbers GPUs by PCI bus; match ours by bus id, never by ordinal (Note [GPU numbering]).
  if (Nvml* nvml = Nvml::instance()) {
    char bus[32] = {};
    if (runtime.deviceGetPCIBusId(bus, sizeof bus, m_ordinal) == cudaSuccess)
      if (const int index = nvml->indexOfPciBusId(bus); index >= 0) m_sampler = std::make_unique<UtilizationSampler>(*nvml, index);
  }
}

CudaDeviceContext::~CudaDeviceContext() {
  GpuRuntime& runtime = gpuRuntime();
  runtime.setDevice(m_ordinal);
  if (m_stream) runtime.streamSynchronize(m_stream);
  if (m_commStream) runtime.streamSynchronize(m_commStream);
  m_workspace = Tensor();
  if (m_cublas) cublasDestroy(m_cublas);
  if (m_cudnn) cudnnDestroy(m_cudnn);
  if (m_downloadsQueued) runtime.eventDestroy(m_downloadsQueued);
  for (cudaEvent_t e : m_marks) runtime.eventDestroy(e);
  if (m_graph) runtime.graphExecDestroy(m_graph);
  if (m_commStream) runtime.streamDestroy(m_commStream);
  if (m_stream) runtime.streamDestroy(m_stream);
}

const std::string& CudaDeviceContext::backend() const {
  static const std::string kCuda = "cuda";
  return kCuda;
}

void CudaDeviceContext::makeCurrent() const { NS_CUDA_CHECK(gpuRuntime().setDevice(m_ordinal)); }

void CudaDeviceContext::synchronize() {
  makeCurrent();
  NS_CUDA_CHECK(gpuRuntime().streamSynchronize(m_stream));
}


double CudaDeviceContext::busySeconds() const { return m_sampler ? m_sampler->busySeconds() : 0.0; }

std::optional<int64_t> CudaDeviceContext::memoryInUseBytes() const {
  makeCurrent();
  size_t freeBytes = 0, totalBytes = 0;
  if (gpuRuntime().memGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
    gpuRuntime().getLastError();
    return std::nullopt;
  }
  return static_cast<int64_t>(totalBytes - freeBytes);
}

DeviceSensors CudaDeviceContext::sensors() const { return m_sampler ? m_sampler->sensors() : DeviceSensors{}; }

void CudaDeviceContext::upload(float* dst, const float* src, int64_t n) {
  if (n <= 0) return;
  makeCurrent();
  NS_CUDA_CHECK(gpuRuntime().memcpyAsync(dst, src, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice,
                                         m_stream));
}

void CudaDeviceContext::download(float* dst, const float* src, int64_t n) {
  if (n <= 0) return;
  makeCurrent();
  NS_CUDA_CHECK(gpuRuntime().memcpyAsync(dst, src, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToHost,
                                         m_stream));
  NS_CUDA_CHECK(gpuRuntime().streamSynchronize(m_stream));
}

void CudaDeviceContext::queueDownload(float* dst, const float* src, int64_t n) {
  if (n <= 0) return;
  GpuRuntime& runtime = gpuRuntime();
  NS_CUDA_CHECK(runtime.memcpyAsync(dst, src, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToHost, m_stream));
  NS_CUDA_CHECK(runtime.eventRecord(m_downloadsQueued, m_stream));
}

void CudaDeviceContext::finishDownloads() {
  makeCurrent();
  NS_CUDA_CHECK(gpuRuntime().eventSynchronize(m_downloadsQueued));
}

void CudaDeviceContext::beginCapture() {
  makeCurrent();
  NS_CUDA_CHECK(gpuRuntime().streamBeginCapture(m_stream));
}

bool CudaDeviceContext::endCapture() {
  GpuRuntime& runtime = gpuRuntime();
  cudaGraph_t graph = nullptr;
  if (runtime.streamEndCapture(m_stream, &graph) != cudaSuccess || !graph) {
    runtime.getLastError();  // the refused call's error, and the invalidation's: not the device's
    return false;
  }
  if (m_graph) NS_CUDA_CHECK(runtime.graphExecDestroy(m_graph));
  m_graph = nullptr;
  const cudaError_t made = runtime.graphInstantiate(&m_graph, graph);
  runtime.graphDestroy(graph);
  if (made != cudaSuccess) {
    runtime.getLastError();
    m_graph = nullptr;
    return false;
  }
  return true;
}

void CudaDeviceContext::launchCaptured() {
  GpuRuntime& runtime = gpuRuntime();
  NS_CUDA_CHECK(runtime.graphLaunch(m_graph, m_stream));
  // Events recorded inside a capture are not recorded by its launch (Note [Simulated CUDA graphs]).
  NS_CUDA_CHECK(runtime.eventRecord(m_downloadsQueued, m_stream));
}

int CudaDeviceContext::mark() {
  GpuRuntime& runtime = gpuRuntime();
  if (m_marksUsed == static_cast<int>(m_marks.size())) {
    m_marks.push_back(nullptr);
    NS_CUDA_CHECK(runtime.eventCreateTimed(&m_marks.back()));
  }
  NS_CUDA_CHECK(runtime.eventRecord(m_marks[static_cast<size_t>(m_marksUsed)], m_stream));
  return m_marksUsed++;
}

void CudaDeviceContext::waitForMarks() {
  if (m_marksUsed == 0) return;
  makeCurrent();
  NS_CUDA_CHECK(gpuRuntime().eventSynchronize(m_marks[static_cast<size_t>(m_marksUsed - 1)]));
}

double CudaDeviceContext::secondsBetween(int a, int b) {
  float ms = 0;
  NS_CUDA_CHECK(gpuRuntime().eventElapsedTime(&ms, m_marks.at(static_cast<size_t>(a)), m_marks.at(static_cast<size_t>(b))));
  return static_cast<double>(ms) / 1000.0;
}

void CudaDeviceContext::copy(float* dst, const float* src, int64_t n) {
  if (n <= 0 || dst == src) return;
  NS_CUDA_CHECK(gpuRuntime().memcpyAsync(dst, src, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice,
                                         m_stream));
}

void CudaDeviceContext::fill(float* dst, int64_t n, float value) { launchFill(dst, n, value, m_stream); }
void CudaDeviceContext::accumulate(float* acc, const float* x, int64_t n) { launchAccumulate(acc, x, n, m_stream); }
void CudaDeviceContext::scale(float* dst, const float* src, int64_t n, float s) { launchScale(dst, src, n, s, m_stream); }
void CudaDeviceContext::averageToward(float* average, const float* value, int64_t n, float decay, float weight,
                                      const int* skip) {
  launchAverageToward(average, value, n, decay, weight, skip, m_stream);
}
void CudaDeviceContext::exchange(float* a, float* b, int64_t n) { launchExchange(a, b, n, m_stream); }

void CudaDeviceContext::convert(Tensor& dst, const Tensor& src) {
  NS_CHECK(dst.size() == src.size(), "{}: a conversion between tensors of {} and {} values", m_id, dst.size(), src.size());
  if (dst.format() == src.format()) {
    NS_CUDA_CHECK(gpuRuntime().memcpyAsync(dst.raw(), src.raw(), static_cast<size_t>(src.bytes()),
                                           cudaMemcpyDeviceToDevice, m_stream));
    return;
  }
  launchConvert(dst.raw(), dst.storage(), src.raw(), src.storage(), src.size(), layoutMap(dst, src), m_stream);
}

void CudaDeviceContext::accumulateTensor(Tensor& acc, const Tensor& x) {
  NS_CHECK(acc.size() == x.size(), "{}: adding a tensor of {} values to one of {}", m_id, x.size(), acc.size());
  if (acc.format() == TensorFormat{} && x.format() == TensorFormat{}) return accumulate(acc.data(), x.data(), x.size());
  launchAccumulateConverted(acc.raw(), acc.storage(), x.raw(), x.storage(), x.size(), layoutMap(acc, x), m_stream);
}

void* CudaDeviceContext::workspace(size_t bytes) {
  const auto floats = static_cast<int64_t>((bytes + sizeof(float) - 1) / sizeof(float));
  if (floats > m_workspace.capacity()) m_workspace.resize({floats});
  return m_workspace.data();
}

}  // namespace netsmith::cuda
