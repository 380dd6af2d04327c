// Affine's bias on the GPU as a host-device body (Note [Launch shapes] for its launch): the GEMM
// result y (rows, outmaps) gets b added to each row. Run by gridStrideKernel and, on the CPU, by
// tst_cuda_kernel_bodies, which compares it with the CPU Affine.
#pragma once

#include <cstdint>

#include "engine/host_device/host_device.h"

namespace netsmith::cuda::body {

// relu: the ReLU that reads only this Affine, written here (Note [Fused ReLU]; on the GPU Note
// [GPU fused epilogues]): max(y + b, 0), the same float the unfused ReLU stores.
struct AddBias {
  int64_t outmaps;
  bool relu = false;
  NS_HOST_DEVICE void operator()(int64_t i, float* y, const float* b) const {
    const float v = y[i] + b[i % outmaps];
    y[i] = relu ? (v > 0.0f ? v : 0.0f) : v;
  }
};

}  // namespace netsmith::cuda::body
