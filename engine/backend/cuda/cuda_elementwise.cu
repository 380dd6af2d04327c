// The backend's small element-wise kernels (cuda_launch.h).
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_launch.h"

namespace netsmith::cuda {
namespace {

__global__ void fillKernel(float* dst, int64_t n, float value) {
  NS_GRID_STRIDE(i, n) dst[i] = value;
}
__global__ void accumulateKernel(float* acc, const float* x, int64_t n) {
  NS_GRID_STRIDE(i, n) acc[i] += x[i];
}
__global__ void scaleKernel(float* dst, const float* src, int64_t n, float s) {
  NS_GRID_STRIDE(i, n) dst[i] = src[i] * s;
}
__global__ void addKernel(float* dst, const float* a, const float* b, int64_t n) {
  NS_GRID_STRIDE(i, n) dst[i] = a[i] + b[i];
}

}  // namespace

void launchFill(float* dst, int64_t n, float value, cudaStream_t stream) {
  if (n <= 0) return;
  fillKernel<<<blocksFor(n), kThreads, 0, stream>>>(dst, n, value);
  NS_CUDA_CHECK_LAUNCH();
}
void launchAccumulate(float* acc, const float* x, int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  accumulateKernel<<<blocksFor(n), kThreads, 0, stream>>>(acc, x, n);
  NS_CUDA_CHECK_LAUNCH();
}
void launchScale(float* dst, const float* src, int64_t n, float s, cudaStream_t stream) {
  if (n <= 0) return;
  scaleKernel<<<blocksFor(n), kThreads, 0, stream>>>(dst, src, n, s);
  NS_CUDA_CHECK_LAUNCH();
}
void launchAdd(float* dst, const float* a, const float* b, int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  addKernel<<<blocksFor(n), kThreads, 0, stream>>>(dst, a, b, n);
  NS_CUDA_CHECK_LAUNCH();
}

}  // namespace netsmith::cuda
