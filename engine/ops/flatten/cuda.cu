// Flatten (and Reshape, reshape/cuda.cu) on the GPU: the data copied as it is, as on the CPU
// (flatten/cpu.cpp), because every node's output is its own buffer.
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

class CudaCopyKernel final : public Kernel {
 public:
  void forward(KernelCall& call) override {
    ctx(call).copy(call.output.data(), call.inputs[0]->data(), call.inputs[0]->size());
  }
  void backward(KernelCall& call) override {
    if (call.inputGrads[0]) ctx(call).copy(call.inputGrads[0]->data(), call.outputGrad->data(), call.outputGrad->size());
  }
};

std::unique_ptr<Kernel> makeCudaCopyKernel(const KernelSetup&) { return std::make_unique<CudaCopyKernel>(); }

void register_flatten(OpRegistry& registry) { addCudaKernel(registry, "Flatten", makeCudaCopyKernel); }

}  // namespace netsmith::cuda
