// Softmax on oneDNN (softmax_forward / softmax_backward over the full (N, ...) tensor).
#include <memory>

#include "engine/backend/cpu/dnnl_utils.h"
#include "engine/backend/cpu/primitive_call.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

class SoftmaxKernel final : public Kernel {
 public:
  explicit SoftmaxKernel(int perSampleAxis) : m_axis(perSampleAxis + 1) {}

  void forward(KernelCall& call) override {
    auto& ctx = cpuContext(call.device);
    prepare(ctx, call.inputs[0]->shape());
    m_src.at(call.inputs[0]->data());
    m_dst.at(call.output.data());
    m_forward.execute(ctx.stream());
    ctx.stream().wait();
  }

  // The softmax gradient needs only the forward output: dx = y * (dy - sum(dy * y)).
  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    auto& ctx = cpuContext(call.device);
    prepare(ctx, call.inputs[0]->shape());
    m_bwdDst.at(call.output.data());
    m_diffDst.at(call.outputGrad->data());
    m_diffSrc.at(call.inputGrads[0]->data());
    m_backward.execute(ctx.stream());
    ctx.stream().wait();
  }

 private:
  // Rebuilt only when the batch size changes (a short last batch): Note [Primitives across steps].
  void prepare(CpuDeviceContext& ctx, const Shape& shape) {
    if (shape == m_shape && m_forward) return;
    auto& eng = ctx.engine();
    const auto md = plainDesc(shape);
    const dnnl::softmax_forward::primitive_desc forwardPd(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_training, md, m_axis), eng);
    const dnnl::softmax_backward::primitive_desc backwardPd(dnnl::softmax_backward::desc(md, md, m_axis), eng,
                                                            forwardPd);
    m_src = MemoryView(md, eng);
    m_dst = MemoryView(md, eng);
    m_bwdDst = MemoryView(md, eng);
    m_diffDst = MemoryView(md, eng);
    m_diffSrc = MemoryView(md, eng);
    m_forward = PrimitiveCall(dnnl::softmax_forward(forwardPd));
    m_forward.bind(DNNL_ARG_SRC, m_src.memory()).bind(DNNL_ARG_DST, m_dst.memory());
    m_backward = PrimitiveCall(dnnl::softmax_backward(backwardPd));
    m_backward.bind(DNNL_ARG_DST, m_bwdDst.memory())
        .bind(DNNL_ARG_DIFF_DST, m_diffDst.memory())
        .bind(DNNL_ARG_DIFF_SRC, m_diffSrc.memory());
    m_shape = shape;
  }

  int m_axis;  // counting the batch axis, as oneDNN sees the tensor
  Shape m_shape;
  MemoryView m_src, m_dst;                  // forward
  MemoryView m_bwdDst, m_diffDst, m_diffSrc;  // backward
  PrimitiveCall m_forward, m_backward;
};

}  // namespace

std::unique_ptr<Kernel> makeSoftmaxKernel(const KernelSetup& setup) {
  return std::make_unique<SoftmaxKernel>(static_cast<int>(setup.params.integer("axis")));
}

}  // namespace netsmith::cpu
