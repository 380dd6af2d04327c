#include "engine/backend/cuda/cuda_memory.h"

#include <cuda_runtime.h>

#include "engine/backend/cuda/cuda_check.h"

namespace netsmith::cuda {

DevicePool::~DevicePool() {
  cudaSetDevice(m_ordinal);
  cudaDeviceSynchronize();
  for (auto& [size, p] : m_free) cudaFree(p);
}

float* DevicePool::allocate(size_t bytes) {
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
  NS_CUDA_CHECK(cudaSetDevice(m_ordinal));
  void* p = nullptr;
  cudaError_t status = cudaMalloc(&p, want);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error state of the failed call
    releaseCached();
    status = cudaMalloc(&p, want);
  }
  if (status != cudaSuccess) {
    size_t freeBytes = 0, total = 0;
    cudaGetLastError();
    cudaMemGetInfo(&freeBytes, &total);
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
  cudaSetDevice(m_ordinal);
  cudaDeviceSynchronize();
  std::lock_guard lock(m_mutex);
  for (auto& [size, p] : m_free) cudaFree(p);
  m_free.clear();
  m_cached = 0;
}

float* PinnedAllocator::allocate(size_t bytes) {
  void* p = nullptr;
  NS_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
  return static_cast<float*>(p);
}

void PinnedAllocator::deallocate(float* p, size_t) noexcept {
  if (p) cudaFreeHost(p);
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
