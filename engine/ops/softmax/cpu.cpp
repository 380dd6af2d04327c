// Softmax on oneDNN (softmax_forward / softmax_backward over the full (N, ...) tensor).
#include <memory>

#include "engine/backend/cpu/dnnl_utils.h"
#include "engine/ops/op_schema.h"

namespace netsmith::cpu {
namespace {

class SoftmaxKernel final : public Kernel {
 public:
  explicit SoftmaxKernel(int perSampleAxis) : m_axis(perSampleAxis + 1) {}

  void forward(KernelCall& call) override {
    auto& ctx = cpuContext(call.device);
    prepare(ctx, call.inputs[0]->shape());
    dnnl::softmax_forward(*m_forwardPd)
        .execute(ctx.stream(), {{DNNL_ARG_SRC, wrap(ctx, *call.inputs[0])}, {DNNL_ARG_DST, wrap(ctx, call.output)}});
    ctx.stream().wait();
  }

  // The softmax gradient needs only the forward output: dx = y * (dy - sum(dy * y)).
  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    auto& ctx = cpuContext(call.device);
    prepare(ctx, call.inputs[0]->shape());
    dnnl::softmax_backward(*m_backwardPd)
        .execute(ctx.stream(), {{DNNL_ARG_DST, wrap(ctx, call.output)},
                                {DNNL_ARG_DIFF_DST, wrap(ctx, *call.outputGrad)},
                                {DNNL_ARG_DIFF_SRC, wrap(ctx, *call.inputGrads[0])}});
    ctx.stream().wait();
  }

 private:
  // Rebuilt only when the batch size changes (a short last batch).
  void prepare(CpuDeviceContext& ctx, const Shape& shape) {
    if (shape == m_shape && m_forwardPd) return;
    const auto md = plainDesc(shape);
    m_forwardPd = std::make_unique<dnnl::softmax_forward::primitive_desc>(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_training, md, m_axis), ctx.engine());
    m_backwardPd = std::make_unique<dnnl::softmax_backward::primitive_desc>(
        dnnl::softmax_backward::desc(md, md, m_axis), ctx.engine(), *m_forwardPd);
    m_shape = shape;
  }

  int m_axis;  // counting the batch axis, as oneDNN sees the tensor
  Shape m_shape;
  std::unique_ptr<dnnl::softmax_forward::primitive_desc> m_forwardPd;
  std::unique_ptr<dnnl::softmax_backward::primitive_desc> m_backwardPd;
};

}  // namespace

std::unique_ptr<Kernel> makeSoftmaxKernel(const KernelSetup& setup) {
  return std::make_unique<SoftmaxKernel>(static_cast<int>(setup.params.integer("axis")));
}

}  // namespace netsmith::cpu
