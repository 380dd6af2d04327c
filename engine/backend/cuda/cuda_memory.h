// Memory of the CUDA backend: DevicePool, the caching allocator behind every device tensor of a
// worker, and PinnedAllocator, page-locked host memory for the batch copied in every iteration.
#pragma once

#include <cstddef>
#include <atomic>
#include <map>
#include <mutex>

#include "engine/core/tensor.h"

namespace netsmith::cuda {

// Note [Device pool]: cudaMalloc and cudaFree synchronise the whole device, so blocks are cached:
// a freed block goes to a free list by size and is handed out again for a request of at most its
// size and at least half of it. Blocks are only used by the worker's compute stream (activations,
// parameters) or stay allocated for the worker's life (gradients the communication stream reads),
// so a block freed while kernels that use it are still queued is safe to hand out again: the next
// user's kernels are queued after them on the same stream. Everything is released when the pool
// (its DeviceContext) is destroyed, after the device has finished.
class DevicePool final : public TensorAllocator {
 public:
  explicit DevicePool(int ordinal) : m_ordinal(ordinal) {}
  ~DevicePool() override;
  float* allocate(size_t bytes) override;
  void deallocate(float* p, size_t bytes) noexcept override;
  bool hostAccessible() const override { return false; }

  size_t bytesInUse() const;
  // Counts every block handed out or given back (Note [CUDA graphs of a step]): while it stays
  // the same, every pointer handed out before is still the same memory.
  uint64_t generation() const { return m_generation.load(); }
  size_t bytesCached() const;
  // Gives cached blocks back to the driver (before a retry after cudaErrorMemoryAllocation).
  void releaseCached();

 private:
  static size_t rounded(size_t bytes) { return (bytes + 511) / 512 * 512; }
  int m_ordinal;
  mutable std::mutex m_mutex;  // tensors may be freed by the thread that owns the worker
  std::multimap<size_t, void*> m_free;
  std::map<void*, size_t> m_sizes;  // blocks handed out, by address
  size_t m_inUse = 0;
  size_t m_cached = 0;
  std::atomic<uint64_t> m_generation{0};
};

class PinnedAllocator final : public TensorAllocator {
 public:
  float* allocate(size_t bytes) override;
  void deallocate(float* p, size_t bytes) noexcept override;
  bool hostAccessible() const override { return true; }
  uint64_t generation() const { return m_generation.load(); }  // as DevicePool's

 private:
  std::atomic<uint64_t> m_generation{0};
};

}  // namespace netsmith::cuda
