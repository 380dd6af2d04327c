// Note [Launch shapes]: every launch of a custom kernel (engine/ops/*/cuda.cu, pooling_kernel.cu,
// cuda_elementwise.cu, elementwise_loss.cuh, deterministic_reduction.cuh) takes its grid and block from one of the functions
// below, which check CUDA's limits and throw netsmith::Error naming the kernel before anything is
// launched. The limits: gridDim.x ≤ 2^31 − 1, gridDim.y and gridDim.z ≤ 65,535, blockDim ≤ 1,024
// threads; no dimension may be 0. A launch past them fails only as "invalid configuration
// argument" from a later call, with nothing saying which layer. Host only and free of CUDA
// headers, so the unit tests (tst_launch_shape) check the rule on every machine;
// cuda_kernels.cuh turns a shape into dim3.
#pragma once

#include <cstdint>

#include "engine/core/error.h"

namespace netsmith::cuda {

constexpr int kThreads = 256;  // threads per block of the grid-stride kernels

constexpr int64_t kMaxGridX = 2147483647;  // 2^31 − 1
constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxBlock = 1024;

// Grid-stride loops (NS_GRID_STRIDE) cover any n with any grid, so their grid is capped: enough
// blocks to fill an H100 several times over, and far below gridDim.x's limit.
constexpr int64_t kGridStrideMaxBlocks = 65535 * 8;

struct LaunchShape {
  uint32_t gridX = 1, gridY = 1, gridZ = 1;
  uint32_t block = kThreads;  // threads per block (x only)
};

// The one rule (Note [Launch shapes]): each dimension within CUDA's limits, or an Error that
// names the kernel, the dimension and the value.
inline LaunchShape checkedShape(const char* kernel, int64_t gridX, int64_t gridY, int64_t gridZ, int64_t block) {
  const auto check = [kernel](const char* dim, int64_t value, int64_t limit) {
    NS_CHECK(value >= 1 && value <= limit,
             "CUDA kernel '{}' cannot be launched with {} = {}: CUDA allows 1 to {}; the layer is too large for this "
             "kernel's launch shape (Note [Launch shapes]): make it smaller, or report it",
             kernel, dim, value, limit);
  };
  check("gridDim.x", gridX, kMaxGridX);
  check("gridDim.y", gridY, kMaxGridYZ);
  check("gridDim.z", gridZ, kMaxGridYZ);
  check("blockDim.x", block, kMaxBlock);
  return {static_cast<uint32_t>(gridX), static_cast<uint32_t>(gridY), static_cast<uint32_t>(gridZ),
          static_cast<uint32_t>(block)};
}

// A grid-stride loop over n ≥ 0 elements (n = 0 still gets one block, which does nothing).
inline LaunchShape gridStride(const char* kernel, int64_t n, int64_t threads = kThreads) {
  NS_CHECK(n >= 0, "CUDA kernel '{}' was asked to cover {} elements", kernel, n);
  NS_CHECK(threads >= 1, "CUDA kernel '{}' was given {} threads per block", kernel, threads);
  const int64_t blocks = (n + threads - 1) / threads;
  return checkedShape(kernel, blocks < 1 ? 1 : (blocks > kGridStrideMaxBlocks ? kGridStrideMaxBlocks : blocks), 1,
                      1, threads);
}

// One thread per item (a channel's finishing step): ceil(items / threads) blocks on grid x.
inline LaunchShape perThread(const char* kernel, int64_t items, int64_t threads) {
  NS_CHECK(threads >= 1, "CUDA kernel '{}' was given {} threads per block", kernel, threads);
  return checkedShape(kernel, (items + threads - 1) / threads, 1, 1, threads);
}

// One block per item (a sample, a plane, a row) on grid x, reduced with blockSum/blockMax, which
// need whole warps.
inline LaunchShape perBlock(const char* kernel, int64_t items, int64_t threads) {
  NS_CHECK(threads % 32 == 0, "CUDA kernel '{}' reduces over its block, which needs whole warps, not {} threads",
           kernel, threads);
  return checkedShape(kernel, items, 1, 1, threads);
}

// One block per (channel, slice): the channel on grid x (up to 2^31 − 1 channels), the slice on
// grid y. Channels on y overflowed at 65,536 (issue 13).
inline LaunchShape perChannelSlice(const char* kernel, int64_t channels, int64_t slices, int64_t threads) {
  NS_CHECK(threads % 32 == 0, "CUDA kernel '{}' reduces over its block, which needs whole warps, not {} threads",
           kernel, threads);
  return checkedShape(kernel, channels, slices, 1, threads);
}

}  // namespace netsmith::cuda
