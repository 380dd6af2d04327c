// Device-side helpers for the CUDA kernels of the ops (nvcc only): launch geometry, the
// counter-based random numbers of engine/core/rng.h, and block reductions.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/backend/cuda/cuda_check.h"

namespace netsmith::cuda {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n elements: enough to fill an H100 several times over.
inline unsigned blocksFor(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65535 * 8 ? 65535 * 8 : b));
}

#define NS_GRID_STRIDE(i, n) \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// The same arithmetic as netsmith::mix64 / counterUniform / RandomKey::uniform (engine/core/rng.h,
// engine/ops/op_schema.h), so Dropout draws the same mask on the GPU as on the CPU.
__host__ __device__ inline uint64_t mix64Device(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__host__ __device__ inline float counterUniformDevice(uint64_t seed, uint64_t stream, uint64_t counter) {
  const uint64_t bits = mix64Device(mix64Device(seed ^ mix64Device(stream)) + counter);
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
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
