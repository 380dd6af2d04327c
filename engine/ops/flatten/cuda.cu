// Flatten (and Reshape, reshape/cuda.cu) on the GPU: the data copied as it is, as on the CPU
// (flatten/cpu.cpp), because every node's output is its own buffer; in whatever storage the
// activations have (Note [16-bit activations]: convert() between equal storages copies the bytes).
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {

class CudaCopyKernel final : public Kernel {
 public:
  void forward(KernelCall& call) override { ctx(call).convert(call.output, *call.inputs[0]); }
  void backward(KernelCall& call) override {
    if (call.inputGrads[0]) ctx(call).convert(*call.inputGrads[0], *call.outputGrad);
  }
};

std::unique_ptr<Kernel> makeCudaCopyKernel(const KernelSetup&) { return std::make_unique<CudaCopyKernel>(); }

void register_flatten(OpRegistry& registry) { addCudaKernel(registry, "Flatten", makeCudaCopyKernel, Activations::Also16Bit); }

}  // namespace netsmith::cuda
