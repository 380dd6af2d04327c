// Softmax on the GPU: cuDNN's accurate softmax in channel mode over the tensor seen as
// (outer, axis size, inner, 1), outer = batch × the axes before, inner = the axes after.
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

class SoftmaxKernel final : public Kernel {
 public:
  SoftmaxKernel(int64_t outerPerSample, int64_t axisSize, int64_t inner)
      : m_outerPerSample(outerPerSample), m_axisSize(axisSize), m_inner(inner) {}

  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    prepare(call.inputs[0]->dim(0));
    const float one = 1.0f, zero = 0.0f;
    NS_CUDNN_CHECK(cudnnSoftmaxForward(c.cudnn(), CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, m_desc.get(),
                                       call.inputs[0]->data(), &zero, m_desc.get(), call.output.data()));
  }

  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    auto& c = ctx(call);
    prepare(call.inputs[0]->dim(0));
    const float one = 1.0f, zero = 0.0f;
    NS_CUDNN_CHECK(cudnnSoftmaxBackward(c.cudnn(), CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one,
                                        m_desc.get(), call.output.data(), m_desc.get(), call.outputGrad->data(), &zero,
                                        m_desc.get(), call.inputGrads[0]->data()));
  }

 private:
  void prepare(int64_t batch) {
    if (batch == m_batch) return;
    m_desc.set(batch * m_outerPerSample, m_axisSize, m_inner, 1);
    m_batch = batch;
  }
  int64_t m_outerPerSample, m_axisSize, m_inner;
  int64_t m_batch = -1;
  TensorDesc m_desc;
};

}  // namespace

void register_softmax(OpRegistry& registry) {
  addCudaKernel(registry, "Softmax", [](const KernelSetup& setup) {
    const Shape& x = setup.inputShapes.at(0);
    const auto axis = static_cast<size_t>(setup.params.integer("axis"));
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < axis; ++d) outer *= x[d];
    for (size_t d = axis + 1; d < x.size(); ++d) inner *= x[d];
    return std::make_unique<SoftmaxKernel>(outer, x[axis], inner);
  });
}

}  // namespace netsmith::cuda
