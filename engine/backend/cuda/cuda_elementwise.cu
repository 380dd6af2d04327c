// The backend's small element-wise kernels (cuda_launch.h). Each body is in elementwise_bodies.h;
// on simulated GPUs the same body runs in a host loop on the stream's thread.
#include <tuple>
#include <type_traits>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_launch.h"
#include "engine/backend/cuda/elementwise_bodies.h"
#include "engine/core/conversion_bodies.h"
#include "engine/host_device/weight_average.h"

namespace netsmith::cuda {
namespace {

template <typename F>
__global__ void channelSums(float* db, const typename F::Bits* dy, int64_t batch, int64_t C, int64_t S, bool last) {
  const int64_t c = blockIdx.x;
  double sum = 0.0;
  for (int64_t j = threadIdx.x; j < batch * S; j += blockDim.x)  // j: (sample, position)
    sum += F::load(dy[last ? j * C + c : (j / S * C + c) * S + j % S]);
  sum = blockSum(sum);
  if (threadIdx.x == 0) db[c] = static_cast<float>(sum);
}

// Note [Weight averaging]: the average's step, left out when the solver's flag says its update was
// skipped (every thread reads the same int; the simulated GPUs read it once, before the loop). Here
// rather than in elementwise_bodies.h, whose users see only the backend's own bodies.
struct SkippableAverage {
  netsmith::body::AverageToward toward;
  __device__ void operator()(int64_t i, float* average, const float* value, const int* skip) const {
    if (skip && *skip) return;
    toward(i, average, value);
  }
};

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
void launchAverageToward(float* average, const float* value, int64_t n, float decay, float weight, const int* skip,
                         cudaStream_t stream) {
  if (n <= 0) return;
  const netsmith::body::AverageToward toward{decay, weight};
  if (GpuRuntime& runtime = gpuRuntime(); runtime.simulated()) {
    // The flag is one int, not n: read it as the GPU would, when the work runs.
    NS_CUDA_CHECK(runtime.launchHost(stream, "weight average", [=](DeviceMemoryAccess& memory) {
      if (skip && *memory.at(skip, 1)) return;
      float* a = memory.at(average, n);
      const float* v = memory.at(value, n);
      for (int64_t i = 0; i < n; ++i) toward(i, a, v);
    }));
    return;
  }
  launchGridStride("weight average", stream, n, SkippableAverage{toward}, average, value, skip);
}
void launchExchange(float* a, float* b, int64_t n, cudaStream_t stream) {
  launchElementwise("exchange", stream, n, netsmith::body::Exchange{}, a, b);
}
void launchConvert(void* dst, Storage dstStorage, const void* src, Storage srcStorage, int64_t n, LayoutMap map,
                   cudaStream_t stream) {
  withFormats(dstStorage, srcStorage, [&](auto out, auto in) {
    using Out = decltype(out);
    using In = decltype(in);
    launchElementwise("convert", stream, n, netsmith::body::Convert<Out, In>{map}, static_cast<typename Out::Bits*>(dst),
                      static_cast<const typename In::Bits*>(src));
  });
}
void launchAccumulateConverted(void* acc, Storage accStorage, const void* x, Storage xStorage, int64_t n, LayoutMap map,
                               cudaStream_t stream) {
  withFormats(accStorage, xStorage, [&](auto out, auto in) {
    using Out = decltype(out);
    using In = decltype(in);
    launchElementwise("accumulate", stream, n, netsmith::body::AccumulateConverted<Out, In>{map},
                      static_cast<typename Out::Bits*>(acc), static_cast<const typename In::Bits*>(x));
  });
}
void launchAdd(void* dst, const void* a, const void* b, Storage storage, int64_t n, cudaStream_t stream) {
  withFormat(storage, [&](auto format) {
    using F = decltype(format);
    using Bits = typename F::Bits;
    launchElementwise("add", stream, n, body::AddStored<F>{}, static_cast<Bits*>(dst), static_cast<const Bits*>(a),
                      static_cast<const Bits*>(b));
  });
}
void launchChannelBias(void* y, TensorFormat format, const float* b, int64_t n, int64_t C, int64_t S, bool relu,
                       cudaStream_t stream) {
  const bool last = format.layout == Layout::ChannelsLast;
  withFormat(format.storage, [&](auto f) {
    using F = decltype(f);
    launchElementwise("channel bias", stream, n, body::ChannelBias<F>{C, S, relu, last}, static_cast<typename F::Bits*>(y),
                      b);
  });
}
void launchChannelBiasGradient(float* db, const void* dy, TensorFormat format, int64_t batch, int64_t C, int64_t S,
                               cudaStream_t stream) {
  NS_CHECK(!gpuRuntime().simulated(), "the channel bias gradient kernel runs on real GPUs only");
  if (C <= 0) return;
  const bool last = format.layout == Layout::ChannelsLast;
  withFormat(format.storage, [&](auto f) {
    using F = decltype(f);
    const LaunchShape shape = perBlock("channelBiasGradient", C, kThreads);
    channelSums<F><<<gridOf(shape), shape.block, 0, stream>>>(db, static_cast<const typename F::Bits*>(dy), batch, C, S,
                                                               last);
  });
  NS_CUDA_CHECK_LAUNCH();
}
void launchClampForward(const void* x, void* y, Storage storage, int64_t n, float ceiling, cudaStream_t stream) {
  withFormat(storage, [&](auto f) {
    using F = decltype(f);
    using Bits = typename F::Bits;
    launchElementwise("relu", stream, n, body::ClampForward<F>{ceiling}, static_cast<const Bits*>(x), static_cast<Bits*>(y));
  });
}
void launchClampBackward(const void* v, const void* dy, void* dx, Storage storage, int64_t n, float ceiling,
                         cudaStream_t stream) {
  withFormat(storage, [&](auto f) {
    using F = decltype(f);
    using Bits = typename F::Bits;
    launchElementwise("relu backward", stream, n, body::ClampBackward<F>{ceiling}, static_cast<const Bits*>(v),
                      static_cast<const Bits*>(dy), static_cast<Bits*>(dx));
  });
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
