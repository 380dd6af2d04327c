// Affine's bias on the GPU as a host-device body (Note [Launch shapes] for its launch): the GEMM
// result y (rows, outmaps) gets b added to each row. Run by gridStrideKernel and, on the CPU, by
// tst_cuda_kernel_bodies, which compares it with the CPU Affine.
#pragma once

#include <cstdint>

#include "engine/host_device/host_device.h"

namespace netsmith::cuda::body {

struct AddBias {
  int64_t outmaps;
  NS_HOST_DEVICE void operator()(int64_t i, float* y, const float* b) const { y[i] += b[i % outmaps]; }
};

}  // namespace netsmith::cuda::body
