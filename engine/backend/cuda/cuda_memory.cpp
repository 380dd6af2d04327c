#include "engine/backend/cuda/cuda_memory.h"


#include "engine/backend/cuda/cuda_check.h"

namespace netsmith::cuda {

DevicePool::~DevicePool() {
  GpuRuntime& runtime = gpuRuntime();
  runtime.setDevice(m_ordinal);
  runtime.deviceSynchronize();
  for (auto& [size, p] : m_free) runtime.free(p);
}

float* DevicePool::allocate(size_t bytes) {
  ++m_generation;
  const size_t want = rounded(bytes);
  {
    std::lock_guard lock(m_mutex);
    const auto it = m_free.lower_bound(want);
    if (it != m_free.end() && it->first <= 2 * want) {
      void* p = it->second;
      m_cached -= it->first;
      m_inUse += it->first;
      m_free.erase(it);
      // The block keeps its real size: deallocate() is told the requested bytes, so remember it.
      m_sizes[p] = it->first;
      return static_cast<float*>(p);
    }
  }
  GpuRuntime& runtime = gpuRuntime();
  NS_CUDA_CHECK(runtime.setDevice(m_ordinal));
  void* p = nullptr;
  cudaError_t status = runtime.malloc(&p, want);
  if (status == cudaErrorMemoryAllocation) {
    runtime.getLastError();  // clear the error state of the failed call
    releaseCached();
    status = runtime.malloc(&p, want);
  }
  if (status != cudaSuccess) {
    size_t freeBytes = 0, total = 0;
    runtime.getLastError();
    runtime.memGetInfo(&freeBytes, &total);
    NS_THROW("cuda:{} is out of memory: {} MiB requested, {} MiB free of {} MiB ({} MiB held by this worker): lower "
             "config.batch_size or use a smaller network",
             m_ordinal, want >> 20, freeBytes >> 20, total >> 20, bytesInUse() >> 20);
  }
  std::lock_guard lock(m_mutex);
  m_inUse += want;
  m_sizes[p] = want;
  return static_cast<float*>(p);
}

void DevicePool::deallocate(float* p, size_t) noexcept {
  if (!p) return;
  ++m_generation;
  std::lock_guard lock(m_mutex);
  const auto it = m_sizes.find(p);
  if (it == m_sizes.end()) return;  // not ours: never happens, and must not throw here
  m_inUse -= it->second;
  m_cached += it->second;
  m_free.emplace(it->second, p);
  m_sizes.erase(it);
}

size_t DevicePool::bytesInUse() const {
  std::lock_guard lock(m_mutex);
  return m_inUse;
}

size_t DevicePool::bytesCached() const {
  std::lock_guard lock(m_mutex);
  return m_cached;
}

void DevicePool::releaseCached() {
  GpuRuntime& runtime = gpuRuntime();
  runtime.setDevice(m_ordinal);
  runtime.deviceSynchronize();
  std::lock_guard lock(m_mutex);
  for (auto& [size, p] : m_free) runtime.free(p);
  m_free.clear();
  m_cached = 0;
}

float* PinnedAllocator::allocate(size_t bytes) {
  ++m_generation;
  void* p = nullptr;
  NS_CUDA_CHECK(gpuRuntime().hostAlloc(&p, bytes));
  return static_cast<float*>(p);
}

void PinnedAllocator::deallocate(float* p, size_t) noexcept {
  if (!p) return;
  ++m_generation;
  gpuRuntime().freeHost(p);
}

const char* cublasStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_(unknown)";
  }
}

}  // namespace netsmith::cuda
