// Host entry points of the small CUDA kernels shared by the backend (cuda_elementwise.cu), for
// C++ files that nvcc does not compile. All are queued on `stream`; n counts floats.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace netsmith::cuda {

void launchFill(float* dst, int64_t n, float value, cudaStream_t stream);
void launchAccumulate(float* acc, const float* x, int64_t n, cudaStream_t stream);      // acc += x
void launchScale(float* dst, const float* src, int64_t n, float s, cudaStream_t stream);  // dst = src * s
void launchAdd(float* dst, const float* a, const float* b, int64_t n, cudaStream_t stream);  // dst = a + b
// out[i] = the sum over r < ranks (at most body::TreeSum::kMaxRanks) of parts[r * count + i], in
// Note [Reduction tree]'s order.
void launchTreeSum(float* out, const float* parts, int ranks, int64_t count, cudaStream_t stream);

}  // namespace netsmith::cuda
