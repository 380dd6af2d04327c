// Concatenate on the GPU: one strided 2-D copy per input (cudaMemcpy2DAsync). Seen from the
// joined axis each tensor is (outer, axis size × inner), as in concatenate/cpu.cpp.
#include <vector>

#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

class ConcatenateKernel final : public Kernel {
 public:
  ConcatenateKernel(const std::vector<Shape>& inputs, int64_t axis) {
    for (const Shape& x : inputs) {
      int64_t block = 1;
      for (size_t d = static_cast<size_t>(axis); d < x.size(); ++d) block *= x[d];
      m_blocks.push_back(block);
      m_outBlock += block;
    }
    for (int64_t d = 0; d < axis; ++d) m_outerPerSample *= inputs[0][static_cast<size_t>(d)];
  }

  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    const int64_t outer = call.output.dim(0) * m_outerPerSample;
    int64_t offset = 0;
    for (size_t k = 0; k < m_blocks.size(); ++k) {
      NS_CUDA_CHECK(cudaMemcpy2DAsync(call.output.data() + offset, m_outBlock * sizeof(float), call.inputs[k]->data(),
                                      m_blocks[k] * sizeof(float), m_blocks[k] * sizeof(float), outer,
                                      cudaMemcpyDeviceToDevice, c.stream()));
      offset += m_blocks[k];
    }
  }

  void backward(KernelCall& call) override {
    auto& c = ctx(call);
    const int64_t outer = call.outputGrad->dim(0) * m_outerPerSample;
    int64_t offset = 0;
    for (size_t k = 0; k < m_blocks.size(); ++k) {
      if (Tensor* dx = call.inputGrads[k])
        NS_CUDA_CHECK(cudaMemcpy2DAsync(dx->data(), m_blocks[k] * sizeof(float), call.outputGrad->data() + offset,
                                        m_outBlock * sizeof(float), m_blocks[k] * sizeof(float), outer,
                                        cudaMemcpyDeviceToDevice, c.stream()));
      offset += m_blocks[k];
    }
  }

 private:
  std::vector<int64_t> m_blocks;
  int64_t m_outBlock = 0;
  int64_t m_outerPerSample = 1;
};

}  // namespace

void register_concatenate(OpRegistry& registry) {
  addCudaKernel(registry, "Concatenate", [](const KernelSetup& setup) {
    return std::make_unique<ConcatenateKernel>(setup.inputShapes, setup.params.integer("axis"));
  });
}

}  // namespace netsmith::cuda
