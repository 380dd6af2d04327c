// Add2 on the GPU: y = a + b; both input gradients are the output gradient.
#include "engine/backend/cuda/cuda_launch.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

class Add2Kernel final : public Kernel {
 public:
  void forward(KernelCall& call) override {
    launchAdd(call.output.data(), call.inputs[0]->data(), call.inputs[1]->data(), call.output.size(), ctx(call).stream());
  }
  void backward(KernelCall& call) override {
    for (Tensor* dx : call.inputGrads)
      if (dx) ctx(call).copy(dx->data(), call.outputGrad->data(), call.outputGrad->size());
  }
};

}  // namespace

void register_add2(OpRegistry& registry) {
  addCudaKernel(registry, "Add2", [](const KernelSetup&) { return std::make_unique<Add2Kernel>(); });
}

}  // namespace netsmith::cuda
