// The kernel of every op that only reinterprets the shape (Flatten, Reshape): the data is copied
// as it is, because every node's output is its own buffer.
#include <cstring>
#include <memory>

#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

class CopyKernel final : public Kernel {
 public:
  void forward(KernelCall& call) override {
    std::memcpy(call.output.data(), call.inputs[0]->data(), sizeof(float) * call.inputs[0]->size());
  }
  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    std::memcpy(call.inputGrads[0]->data(), call.outputGrad->data(), sizeof(float) * call.outputGrad->size());
  }
};

}  // namespace

std::unique_ptr<Kernel> makeCopyKernel(const KernelSetup&) { return std::make_unique<CopyKernel>(); }

}  // namespace netsmith::cpu
