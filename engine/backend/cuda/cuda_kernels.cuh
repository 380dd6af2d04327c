// Device-side helpers for the CUDA kernels of the ops (nvcc only): launch geometry (checked shapes
// from launch_shape.h), the grid-stride loop and kernel, the counter-based random numbers
// (counter_random.h), and block reductions.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/backend/cuda/counter_random.h"
#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/launch_shape.h"

namespace netsmith::cuda {

// A checked launch shape (Note [Launch shapes]) as the grid of a <<<grid, block>>> launch.
inline dim3 gridOf(const LaunchShape& s) { return dim3(s.gridX, s.gridY, s.gridZ); }

#define NS_GRID_STRIDE(i, n) \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// body(i, args...) for every i in [0, n): the kernel of each per-element body. The bodies are
// host-device functors in headers next to their kernels, so tst_cuda_kernel_bodies runs the same
// code on the CPU and compares it with the CPU op.
template <typename Body, typename... Args>
__global__ void gridStrideKernel(int64_t n, Body body, Args... args) {
  NS_GRID_STRIDE(i, n) body(i, args...);
}

// gridStrideKernel queued on `stream` with a checked shape; `kernel` names it in errors.
template <typename Body, typename... Args>
void launchGridStride(const char* kernel, cudaStream_t stream, int64_t n, Body body, Args... args) {
  if (n <= 0) return;
  const LaunchShape shape = gridStride(kernel, n);
  gridStrideKernel<<<gridOf(shape), shape.block, 0, stream>>>(n, body, args...);
  NS_CUDA_CHECK_LAUNCH();
}

// Sum of `v` over the block (blockDim.x a multiple of 32, at most 1024); the result is valid in
// thread 0. Fixed order: deterministic.
template <typename T>
__device__ inline T blockSum(T v) {
  __shared__ T partial[32];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // partial may still be read by a previous call
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  T total = T(0);
  if (warp == 0) {
    total = lane < static_cast<int>(blockDim.x >> 5) ? partial[lane] : T(0);
    for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
  }
  return total;
}

template <typename T>
__device__ inline T blockMax(T v) {
  __shared__ T partial[32];
  for (int offset = 16; offset > 0; offset >>= 1) v = max(v, __shfl_down_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  T total = partial[0];
  if (warp == 0) {
    total = lane < static_cast<int>(blockDim.x >> 5) ? partial[lane] : partial[0];
    for (int offset = 16; offset > 0; offset >>= 1) total = max(total, __shfl_down_sync(0xffffffffu, total, offset));
  }
  return total;
}

}  // namespace netsmith::cuda
