// GlobalAveragePooling on the GPU: one block per (sample, channel) plane sums it (fixed order,
// deterministic); backward spreads dy / (H·W) over the plane. Steps in cuda_math.h.
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/global_average_pooling/cuda_math.h"

namespace netsmith::cuda {
namespace {

__global__ void planeMeans(const float* x, float* y, int64_t planeSize, float scale) {
  const float* xp = x + blockIdx.x * planeSize;
  float sum = 0.0f;
  for (int64_t i = threadIdx.x; i < planeSize; i += blockDim.x) sum += xp[i];
  sum = blockSum(sum);
  if (threadIdx.x == 0) y[blockIdx.x] = planeMean(sum, scale);
}

class GlobalAveragePoolingKernel final : public Kernel {
 public:
  GlobalAveragePoolingKernel(int64_t channels, int64_t planeSize) : m_channels(channels), m_planeSize(planeSize) {}

  void forward(KernelCall& call) override {
    const int64_t planes = call.inputs[0]->dim(0) * m_channels;
    if (planes == 0) return;
    const LaunchShape shape = perBlock("globalAveragePoolingForward", planes, kThreads);
    planeMeans<<<gridOf(shape), shape.block, 0, ctx(call).stream()>>>(call.inputs[0]->data(), call.output.data(),
                                                                      m_planeSize, scale());
    NS_CUDA_CHECK_LAUNCH();
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    launchGridStride("globalAveragePoolingBackward", ctx(call).stream(), dx->size(),
                     body::GlobalAverageSpread{m_planeSize, scale()}, call.outputGrad->data(), dx->data());
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
  });
}

}  // namespace netsmith::cuda
