// Add2 on the GPU: y = a + b; both input gradients are the output gradient. Float32 or 16-bit
// activations (Note [16-bit activations]): the sum in float32, rounded as it is stored.
#include "engine/backend/cuda/cuda_launch.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

class Add2Kernel final : public Kernel {
 public:
  void forward(KernelCall& call) override {
    launchAdd(call.output.raw(), call.inputs[0]->raw(), call.inputs[1]->raw(), call.output.storage(), call.output.size(),
              ctx(call).stream());
  }
  void backward(KernelCall& call) override {
    for (Tensor* dx : call.inputGrads)
      if (dx) ctx(call).convert(*dx, *call.outputGrad);
  }
};

}  // namespace

void register_add2(OpRegistry& registry) {
  addCudaKernel(registry, "Add2", [](const KernelSetup&) { return std::make_unique<Add2Kernel>(); },
                Activations::Also16Bit,
                Layouts::AlsoChannelsLast);  // element-wise: any layout
}

}  // namespace netsmith::cuda
