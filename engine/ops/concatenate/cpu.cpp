// Concatenate on the CPU: block copies. Seen from the joined axis, each tensor is
// (outer, axis size * inner) with outer = batch * sizes before the axis, inner = sizes after it.
#include <cstring>
#include <memory>
#include <vector>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

class ConcatenateKernel final : public Kernel {
 public:
  ConcatenateKernel(const std::vector<Shape>& inputs, int64_t axis) {
    for (const Shape& x : inputs) {
      int64_t block = 1;
      for (size_t d = axis; d < x.size(); ++d) block *= x[d];
      m_blocks.push_back(block);
      m_outBlock += block;
    }
    m_outerPerSample = 1;
    for (int64_t d = 0; d < axis; ++d) m_outerPerSample *= inputs[0][d];
  }

  void forward(KernelCall& call) override {
    const int64_t outer = call.output.dim(0) * m_outerPerSample;
    float* y = call.output.data();
    parallelFor(outer, [&](int64_t o) {
      int64_t offset = 0;
      for (size_t k = 0; k < m_blocks.size(); ++k) {
        std::memcpy(y + o * m_outBlock + offset, call.inputs[k]->data() + o * m_blocks[k], sizeof(float) * m_blocks[k]);
        offset += m_blocks[k];
      }
    });
  }

  void backward(KernelCall& call) override {
    const int64_t outer = call.outputGrad->dim(0) * m_outerPerSample;
    const float* dy = call.outputGrad->data();
    parallelFor(outer, [&](int64_t o) {
      int64_t offset = 0;
      for (size_t k = 0; k < m_blocks.size(); ++k) {
        if (Tensor* dx = call.inputGrads[k])
          std::memcpy(dx->data() + o * m_blocks[k], dy + o * m_outBlock + offset, sizeof(float) * m_blocks[k]);
        offset += m_blocks[k];
      }
    });
  }

 private:
  std::vector<int64_t> m_blocks;  // per input: values from the axis on, for one outer index
  int64_t m_outBlock = 0;
  int64_t m_outerPerSample = 1;
};

}  // namespace

std::unique_ptr<Kernel> makeConcatenateKernel(const KernelSetup& setup) {
  return std::make_unique<ConcatenateKernel>(setup.inputShapes, setup.params.integer("axis"));
}

}  // namespace netsmith::cpu
