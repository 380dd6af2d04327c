// LeakyReLU on the GPU: x for x > 0, alpha·x otherwise (cuDNN has no leaky mode).
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/leaky_relu/cuda_math.h"

namespace netsmith::cuda {
namespace {

class LeakyReluKernel final : public Kernel {
 public:
  explicit LeakyReluKernel(float alpha) : m_alpha(alpha) {}
  void forward(KernelCall& call) override {
    launchGridStride("leakyReluForward", ctx(call).stream(), call.output.size(), body::LeakyReluForward{m_alpha},
                     call.inputs[0]->data(), call.output.data());
  }
  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    const body::LeakyReluBackward gradient{m_alpha};
    launchGridStride("leakyReluBackward", ctx(call).stream(), call.outputGrad->size(), gradient, call.inputs[0]->data(),
                     call.outputGrad->data(), call.inputGrads[0]->data());
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
