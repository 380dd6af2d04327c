// Affine's bias on the GPU as a host-device body (Note [Launch shapes] for its launch): the GEMM
// result y (rows, outmaps) gets b added to each row. Run by gridStrideKernel and, on the CPU, by
// tst_cuda_kernel_bodies, which compares it with the CPU Affine.
#pragma once

#include <cstdint>

#include "engine/core/half_floats.h"
#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

// relu: the ReLU that reads only this Affine, written here (Note [Fused ReLU]; on the GPU Note
// [GPU fused epilogues]): max(y + b, 0), the same float the unfused ReLU stores.
// F: the activations' format (Note [16-bit activations]); the bias is float32.
template <typename F>
struct AddBiasOf {
  int64_t outmaps;
  bool relu = false;
  NS_HOST_DEVICE void operator()(int64_t i, typename F::Bits* y, const float* b) const {
    const float v = F::load(y[i]) + b[i % outmaps];
    y[i] = F::store(relu ? (v > 0.0f ? v : 0.0f) : v);
  }
};
using AddBias = AddBiasOf<Float32Format>;

}  // namespace netsmith::cuda::body
