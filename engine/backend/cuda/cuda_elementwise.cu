// The backend's small element-wise kernels (cuda_launch.h). Each body is in elementwise_bodies.h;
// on simulated GPUs the same body runs in a host loop on the stream's thread.
#include <tuple>
#include <type_traits>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_launch.h"
#include "engine/backend/cuda/elementwise_bodies.h"

namespace netsmith::cuda {
namespace {

// On a simulated GPU: a pointer argument is device memory of n elements, checked and turned into
// its host address; any other argument passes as it is.
template <typename T>
auto simulatedArgument(DeviceMemoryAccess& memory, T arg, int64_t n) {
  if constexpr (std::is_pointer_v<T>) return memory.at(arg, n);
  else return arg;
}

// body(i, args...) for i in [0, n), queued on `stream`.
template <typename Body, typename... Args>
void launchElementwise(const char* name, cudaStream_t stream, int64_t n, Body body, Args... args) {
  if (n <= 0) return;
  if (GpuRuntime& runtime = gpuRuntime(); runtime.simulated()) {
    NS_CUDA_CHECK(runtime.launchHost(stream, name, [=](DeviceMemoryAccess& memory) {
      const auto host = std::make_tuple(simulatedArgument(memory, args, n)...);
      for (int64_t i = 0; i < n; ++i) std::apply([&](auto... a) { body(i, a...); }, host);
    }));
    return;
  }
  launchGridStride(name, stream, n, body, args...);
}

}  // namespace

void launchFill(float* dst, int64_t n, float value, cudaStream_t stream) {
  launchElementwise("fill", stream, n, body::Fill{}, dst, value);
}
void launchAccumulate(float* acc, const float* x, int64_t n, cudaStream_t stream) {
  launchElementwise("accumulate", stream, n, body::Accumulate{}, acc, x);
}
void launchScale(float* dst, const float* src, int64_t n, float s, cudaStream_t stream) {
  launchElementwise("scale", stream, n, body::Scale{}, dst, src, s);
}
void launchAdd(float* dst, const float* a, const float* b, int64_t n, cudaStream_t stream) {
  launchElementwise("add", stream, n, body::Add{}, dst, a, b);
}
void launchTreeSum(float* out, const float* parts, int ranks, int64_t count, cudaStream_t stream) {
  if (count <= 0) return;
  if (GpuRuntime& runtime = gpuRuntime(); runtime.simulated()) {
    NS_CUDA_CHECK(runtime.launchHost(stream, "tree sum", [=](DeviceMemoryAccess& memory) {
      float* o = memory.at(out, count);
      const float* p = memory.at(parts, ranks * count);
      for (int64_t i = 0; i < count; ++i) body::TreeSum{}(i, o, p, ranks, count);
    }));
    return;
  }
  launchGridStride("tree sum", stream, count, body::TreeSum{}, out, parts, ranks, count);
}

}  // namespace netsmith::cuda
