// The backend's small element-wise kernels (cuda_launch.h). Each body is in elementwise_bodies.h;
// on simulated GPUs the same body runs in a host loop on the stream's thread.
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_launch.h"
#include "engine/backend/cuda/elementwise_bodies.h"

namespace netsmith::cuda {
namespace {

__global__ void fillKernel(float* dst, int64_t n, float value) {
  NS_GRID_STRIDE(i, n) body::fill(dst, i, value);
}
__global__ void accumulateKernel(float* acc, const float* x, int64_t n) {
  NS_GRID_STRIDE(i, n) body::accumulate(acc, x, i);
}
__global__ void scaleKernel(float* dst, const float* src, int64_t n, float s) {
  NS_GRID_STRIDE(i, n) body::scale(dst, src, i, s);
}
__global__ void addKernel(float* dst, const float* a, const float* b, int64_t n) {
  NS_GRID_STRIDE(i, n) body::add(dst, a, b, i);
}

}  // namespace

void launchFill(float* dst, int64_t n, float value, cudaStream_t stream) {
  if (n <= 0) return;
  if (GpuRuntime& rt = gpuRuntime(); rt.simulated()) {
    NS_CUDA_CHECK(rt.launchHost(stream, "fill", [=](DeviceMemoryAccess& m) {
      float* d = m.at(dst, n);
      for (int64_t i = 0; i < n; ++i) body::fill(d, i, value);
    }));
    return;
  }
  fillKernel<<<blocksFor(n), kThreads, 0, stream>>>(dst, n, value);
  NS_CUDA_CHECK_LAUNCH();
}
void launchAccumulate(float* acc, const float* x, int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  if (GpuRuntime& rt = gpuRuntime(); rt.simulated()) {
    NS_CUDA_CHECK(rt.launchHost(stream, "accumulate", [=](DeviceMemoryAccess& m) {
      float* a = m.at(acc, n);
      const float* b = m.at(x, n);
      for (int64_t i = 0; i < n; ++i) body::accumulate(a, b, i);
    }));
    return;
  }
  accumulateKernel<<<blocksFor(n), kThreads, 0, stream>>>(acc, x, n);
  NS_CUDA_CHECK_LAUNCH();
}
void launchScale(float* dst, const float* src, int64_t n, float s, cudaStream_t stream) {
  if (n <= 0) return;
  if (GpuRuntime& rt = gpuRuntime(); rt.simulated()) {
    NS_CUDA_CHECK(rt.launchHost(stream, "scale", [=](DeviceMemoryAccess& m) {
      float* d = m.at(dst, n);
      const float* x = m.at(src, n);
      for (int64_t i = 0; i < n; ++i) body::scale(d, x, i, s);
    }));
    return;
  }
  scaleKernel<<<blocksFor(n), kThreads, 0, stream>>>(dst, src, n, s);
  NS_CUDA_CHECK_LAUNCH();
}
void launchAdd(float* dst, const float* a, const float* b, int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  if (GpuRuntime& rt = gpuRuntime(); rt.simulated()) {
    NS_CUDA_CHECK(rt.launchHost(stream, "add", [=](DeviceMemoryAccess& m) {
      float* d = m.at(dst, n);
      const float* x = m.at(a, n);
      const float* y = m.at(b, n);
      for (int64_t i = 0; i < n; ++i) body::add(d, x, y, i);
    }));
    return;
  }
  addKernel<<<blocksFor(n), kThreads, 0, stream>>>(dst, a, b, n);
  NS_CUDA_CHECK_LAUNCH();
}

}  // namespace netsmith::cuda
