// GlobalAveragePooling on the GPU: one block per (sample, channel) plane sums it (fixed order,
// deterministic); backward spreads dy / (H·W) over the plane. Steps in cuda_math.h. Float32 or
// 16-bit activations (Note [16-bit activations]), summed in float32.
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/global_average_pooling/cuda_math.h"

namespace netsmith::cuda {
namespace {

// Channels last (Note [Channels last]): plane n·C + c starts at n·planeSize·C + c, every C-th value.
template <typename F>
__global__ void planeMeans(const typename F::Bits* x, typename F::Bits* y, int64_t planeSize, float scale,
                           int64_t channels, bool last) {
  const int64_t plane = blockIdx.x, stride = last ? channels : 1;
  const typename F::Bits* xp = x + (last ? (plane / channels) * planeSize * channels + plane % channels : plane * planeSize);
  float sum = 0.0f;
  for (int64_t i = threadIdx.x; i < planeSize; i += blockDim.x) sum += F::load(xp[i * stride]);
  sum = blockSum(sum);
  if (threadIdx.x == 0) y[blockIdx.x] = F::store(planeMean(sum, scale));
}

// body::GlobalAverageSpread for activations of format F.
template <typename F>
struct SpreadOf {
  body::GlobalAverageSpread spread;
  __device__ void operator()(int64_t i, const typename F::Bits* dy, typename F::Bits* dx) const {
    spread.template spread<F>(i, dy, dx);
  }
};

class GlobalAveragePoolingKernel final : public Kernel {
 public:
  GlobalAveragePoolingKernel(int64_t channels, int64_t planeSize) : m_channels(channels), m_planeSize(planeSize) {}

  void forward(KernelCall& call) override {
    const int64_t planes = call.inputs[0]->dim(0) * m_channels;
    if (planes == 0) return;
    const LaunchShape shape = perBlock("globalAveragePoolingForward", planes, kThreads);
    withFormat(call.output.storage(), [&](auto format) {
      using F = decltype(format);
      planeMeans<F><<<gridOf(shape), shape.block, 0, ctx(call).stream()>>>(
          static_cast<const typename F::Bits*>(call.inputs[0]->raw()), static_cast<typename F::Bits*>(call.output.raw()),
          m_planeSize, scale(), m_channels, call.inputs[0]->layout() == Layout::ChannelsLast);
    });
    NS_CUDA_CHECK_LAUNCH();
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    withFormat(dx->storage(), [&](auto format) {
      using F = decltype(format);
      launchGridStride("globalAveragePoolingBackward", ctx(call).stream(), dx->size(),
                       SpreadOf<F>{body::GlobalAverageSpread{m_planeSize, scale(), m_channels,
                                                             dx->layout() == Layout::ChannelsLast}},
                       static_cast<const typename F::Bits*>(call.outputGrad->raw()), static_cast<typename F::Bits*>(dx->raw()));
    });
  }

 private:
  float scale() const { return 1.0f / static_cast<float>(m_planeSize); }

  int64_t m_channels;
  int64_t m_planeSize;
};

}  // namespace

void register_global_average_pooling(OpRegistry& registry) {
  addCudaKernel(registry, "GlobalAveragePooling", [](const KernelSetup& setup) {
    const Shape& x = setup.inputShapes.at(0);
    return std::make_unique<GlobalAveragePoolingKernel>(x.at(0), x.at(1) * x.at(2));
  }, Activations::Also16Bit, Layouts::AlsoChannelsLast);
}

}  // namespace netsmith::cuda
