// Tensor: a contiguous, 64-byte aligned float32 array with a shape, owned by value (move-only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "engine/core/shape.h"

namespace netsmith {

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Shape shape) { resize(std::move(shape)); }
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // Sets the shape; memory is reallocated only when the new size exceeds the capacity, so a
  // shrinking last batch of an epoch does not allocate. Contents are unspecified afterwards.
  void resize(Shape shape);
  void zero() { if (m_size) std::memset(m_data.get(), 0, m_size * sizeof(float)); }
  void fill(float v);
  void copyFrom(const Tensor& other);
  Tensor clone() const;

  const Shape& shape() const { return m_shape; }
  int64_t dim(size_t axis) const { return m_shape[axis]; }
  size_t rank() const { return m_shape.size(); }
  int64_t size() const { return m_size; }
  int64_t capacity() const { return m_capacity; }  // floats allocated
  bool empty() const { return m_size == 0; }
  float* data() { return m_data.get(); }
  const float* data() const { return m_data.get(); }
  float& operator[](int64_t i) { return m_data.get()[i]; }
  float operator[](int64_t i) const { return m_data.get()[i]; }

 private:
  struct FreeDeleter {
    void operator()(float* p) const { std::free(p); }
  };
  Shape m_shape;
  int64_t m_size = 0;
  int64_t m_capacity = 0;
  std::unique_ptr<float, FreeDeleter> m_data;
};

}  // namespace netsmith
