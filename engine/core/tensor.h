// Tensor: a contiguous array with a shape, owned by value (move-only): float32, or 16-bit floats
// for the activations a GPU stores in half and bfloat16 (Note [16-bit activations] in
// engine/model/network.cpp). By default it is 64-byte aligned host memory; a tensor given a
// TensorAllocator takes its memory from it instead (a GPU's memory pool, or pinned host memory for
// copies to a GPU): Note [Device memory] in engine/model/network.h.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "engine/core/half_floats.h"
#include "engine/core/shape.h"

namespace netsmith {

const char* storageName(Storage s);  // "float32", "float16", "bfloat16"


// Where a tensor's memory comes from when it is not plain host memory. Owned by a DeviceContext,
// which outlives every tensor it allocated. allocate() throws (Error or std::bad_alloc) on failure.
class TensorAllocator {
 public:
  virtual ~TensorAllocator() = default;
  virtual float* allocate(size_t bytes) = 0;
  virtual void deallocate(float* p, size_t bytes) noexcept = 0;
  // True when the host may read and write the memory (pinned host memory); false for device memory.
  virtual bool hostAccessible() const = 0;
};

namespace detail {
// Gives a tensor's block back where it came from (declared outside Tensor so that it is complete,
// and default-constructible, where unique_ptr needs it).
struct TensorDeleter {
  TensorAllocator* allocator = nullptr;
  size_t bytes = 0;
  bool borrowed = false;  // a view (Tensor::view): the memory belongs to someone else
  void operator()(float* p) const {
    if (borrowed) return;
    if (allocator) allocator->deallocate(p, bytes);
    else std::free(p);
  }
};
}  // namespace detail

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Shape shape) { resize(std::move(shape)); }
  // An empty tensor whose memory, once it has a shape, comes from `allocator` (null: host memory).
  explicit Tensor(TensorAllocator* allocator, Storage storage = Storage::Float32, Layout layout = Layout::ChannelsFirst)
      : m_storage(storage), m_layout(layout), m_data(nullptr, Deleter{allocator, 0}) {}
  Tensor(TensorAllocator* allocator, TensorFormat format) : Tensor(allocator, format.storage, format.layout) {}
  Tensor(Shape shape, TensorAllocator* allocator) : Tensor(allocator) { resize(std::move(shape)); }
  // A tensor over memory it does not own (host memory behind a simulated GPU's pointer: Note
  // [Simulated kernels]); it may be resized within its size, never beyond.
  static Tensor view(float* data, Shape shape);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // Sets the shape; memory is reallocated only when the new size exceeds the capacity, so a
  // shrinking last batch of an epoch does not allocate. Contents are unspecified afterwards.
  void resize(Shape shape);
  // zero, fill, copyFrom, clone and operator[] need host-accessible memory (onHost()); fill and
  // operator[] a float32 tensor.
  void zero() { if (m_size) std::memset(m_data.get(), 0, static_cast<size_t>(bytes())); }
  void fill(float v);
  void copyFrom(const Tensor& other);
  Tensor clone() const;  // always host memory

  const Shape& shape() const { return m_shape; }
  int64_t dim(size_t axis) const { return m_shape[axis]; }
  size_t rank() const { return m_shape.size(); }
  int64_t size() const { return m_size; }
  int64_t capacity() const { return m_capacity; }  // values allocated
  bool empty() const { return m_size == 0; }
  Storage storage() const { return m_storage; }
  // ChannelsLast only for a (N, C, H, W) tensor that a GPU keeps in NHWC (Note [Channels last]).
  Layout layout() const { return m_layout; }
  TensorFormat format() const { return {m_storage, m_layout}; }
  size_t elementBytes() const { return storageBytes(m_storage); }
  int64_t bytes() const { return m_size * static_cast<int64_t>(elementBytes()); }
  int64_t capacityBytes() const { return m_capacity * static_cast<int64_t>(elementBytes()); }
  // The values of a float32 tensor.
  float* data() {
    assert(m_storage == Storage::Float32);
    return m_data.get();
  }
  const float* data() const {
    assert(m_storage == Storage::Float32);
    return m_data.get();
  }
  // The memory whatever the storage; bits16() that of a 16-bit tensor.
  void* raw() { return m_data.get(); }
  const void* raw() const { return m_data.get(); }
  uint16_t* bits16() {
    assert(m_storage != Storage::Float32);
    return reinterpret_cast<uint16_t*>(m_data.get());
  }
  const uint16_t* bits16() const {
    assert(m_storage != Storage::Float32);
    return reinterpret_cast<const uint16_t*>(m_data.get());
  }
  float& operator[](int64_t i) { return m_data.get()[i]; }
  float operator[](int64_t i) const { return m_data.get()[i]; }

  TensorAllocator* allocator() const { return m_data.get_deleter().allocator; }
  // The host may dereference data(): plain or pinned host memory.
  bool onHost() const { return !allocator() || allocator()->hostAccessible(); }

 private:
  using Deleter = detail::TensorDeleter;
  Shape m_shape;
  int64_t m_size = 0;
  int64_t m_capacity = 0;
  Storage m_storage = Storage::Float32;
  Layout m_layout = Layout::ChannelsFirst;
  std::unique_ptr<float, Deleter> m_data;
};

}  // namespace netsmith
