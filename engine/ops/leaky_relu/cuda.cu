// LeakyReLU on the GPU: x for x > 0, alpha·x otherwise (cuDNN has no leaky mode).
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

__global__ void leakyForward(const float* x, float* y, int64_t n, float alpha) {
  NS_GRID_STRIDE(i, n) y[i] = x[i] > 0.0f ? x[i] : alpha * x[i];
}
// oneDNN's eltwise_relu backward: dy where x > 0, alpha·dy elsewhere.
__global__ void leakyBackward(const float* x, const float* dy, float* dx, int64_t n, float alpha) {
  NS_GRID_STRIDE(i, n) dx[i] = x[i] > 0.0f ? dy[i] : alpha * dy[i];
}

class LeakyReluKernel final : public Kernel {
 public:
  explicit LeakyReluKernel(float alpha) : m_alpha(alpha) {}
  void forward(KernelCall& call) override {
    const int64_t n = call.output.size();
    leakyForward<<<blocksFor(n), kThreads, 0, ctx(call).stream()>>>(call.inputs[0]->data(), call.output.data(), n, m_alpha);
    NS_CUDA_CHECK_LAUNCH();
  }
  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    const int64_t n = call.outputGrad->size();
    leakyBackward<<<blocksFor(n), kThreads, 0, ctx(call).stream()>>>(call.inputs[0]->data(), call.outputGrad->data(),
                                                                      call.inputGrads[0]->data(), n, m_alpha);
    NS_CUDA_CHECK_LAUNCH();
  }

 private:
  float m_alpha;
};

}  // namespace

void register_leaky_relu(OpRegistry& registry) {
  addCudaKernel(registry, "LeakyReLU", [](const KernelSetup& setup) {
    return std::make_unique<LeakyReluKernel>(static_cast<float>(setup.params.number("alpha")));
  });
}

}  // namespace netsmith::cuda
