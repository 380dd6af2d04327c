#include "engine/core/tensor.h"

#include <algorithm>
#include <new>

#include "engine/core/error.h"

namespace netsmith {

const char* storageName(Storage s) {
  switch (s) {
    case Storage::Float32: return "float32";
    case Storage::Float16: return "float16";
    case Storage::BFloat16: return "bfloat16";
  }
  return "?";
}

Tensor Tensor::view(float* data, Shape shape) {
  Tensor t;
  t.m_size = numel(shape);
  t.m_capacity = t.m_size;
  t.m_shape = std::move(shape);
  t.m_data = std::unique_ptr<float, Deleter>(data, Deleter{nullptr, 0, true});
  return t;
}

void Tensor::resize(Shape shape) {
  for (int64_t d : shape) NS_CHECK(d >= 0, "tensor axis must be >= 0, got shape {}", shapeToString(shape));
  const int64_t n = numel(shape);
  if (n > m_capacity) {
    NS_CHECK(!m_data.get_deleter().borrowed, "a tensor view of {} values cannot grow to shape {}", m_capacity,
             shapeToString(shape));
    // 64-byte alignment: AVX-512 loads and oneDNN's preferred alignment.
    const size_t bytes = ((static_cast<size_t>(n) * elementBytes() + 63) / 64) * 64;
    TensorAllocator* allocator = this->allocator();
    float* p = nullptr;
    if (allocator) {
      // Give the old block back first, so a device pool may reuse it.
      m_data.reset();
      m_capacity = 0;
      m_size = 0;
      p = allocator->allocate(bytes);
    } else {
      p = static_cast<float*>(std::aligned_alloc(64, bytes));
      if (!p) throw std::bad_alloc();
    }
    m_data = std::unique_ptr<float, Deleter>(p, Deleter{allocator, bytes});
    m_capacity = n;
  }
  m_shape = std::move(shape);
  m_size = n;
}

void Tensor::fill(float v) { std::fill(data(), data() + m_size, v); }

void Tensor::copyFrom(const Tensor& other) {
  NS_CHECK(other.onHost() && onHost(), "Tensor::copyFrom needs host memory on both sides; copy device memory "
                                       "through its DeviceContext");
  if (m_storage != other.storage()) {  // capacity counts values of the old storage: start afresh
    NS_CHECK(!m_data.get_deleter().borrowed, "a tensor view of {} cannot take {} values", storageName(m_storage),
             storageName(other.storage()));
    m_data.reset();
    m_capacity = 0;
    m_size = 0;
    m_storage = other.storage();
  }
  m_layout = other.layout();
  resize(other.shape());
  if (m_size) std::memcpy(raw(), other.raw(), static_cast<size_t>(bytes()));
}

Tensor Tensor::clone() const {
  Tensor t;
  t.copyFrom(*this);
  return t;
}

}  // namespace netsmith
