// Small helpers to describe Tensors to oneDNN primitives (plain row-major layouts); kernels run
// them through MemoryView and PrimitiveCall (primitive_call.h, Note [Primitives across steps]).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/core/shape.h"
#include "engine/core/tensor.h"

namespace netsmith::cpu {

inline dnnl::memory::dims toDims(const Shape& shape) { return dnnl::memory::dims(shape.begin(), shape.end()); }

// The plain (row-major) layout tag for a rank: a, ab, abc, abcd, abcde.
inline dnnl::memory::format_tag plainTag(size_t rank) {
  using tag = dnnl::memory::format_tag;
  switch (rank) {
    case 1: return tag::a;
    case 2: return tag::ab;
    case 3: return tag::abc;
    case 4: return tag::abcd;
    case 5: return tag::abcde;
    case 6: return tag::abcdef;
  }
  NS_THROW("oneDNN tensors of rank {} are not supported (1 to 6)", rank);
}

inline dnnl::memory::desc plainDesc(const Shape& shape) {
  return dnnl::memory::desc(toDims(shape), dnnl::memory::data_type::f32, plainTag(shape.size()));
}

inline CpuDeviceContext& cpuContext(DeviceContext& device) { return static_cast<CpuDeviceContext&>(device); }

}  // namespace netsmith::cpu
