#include "engine/backend/cpu/eltwise_kernel.h"

#include "engine/backend/cpu/dnnl_utils.h"
#include "engine/backend/cpu/primitive_call.h"

namespace netsmith::cpu {
namespace {

class EltwiseKernel final : public Kernel {
 public:
  EltwiseKernel(dnnl::algorithm algorithm, float alpha, float beta)
      : m_algorithm(algorithm), m_alpha(alpha), m_beta(beta), m_fromDst(readsDstInBackward(algorithm)) {}

  void forward(KernelCall& call) override {
    auto& ctx = cpuContext(call.device);
    prepare(ctx, call.inputs[0]->size());
    m_src.at(call.inputs[0]->data());
    m_dst.at(call.output.data());
    m_forward.execute(ctx.stream());
    ctx.stream().wait();
  }

  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    auto& ctx = cpuContext(call.device);
    // From the output: the input may never have been written (Note [Fused ReLU]).
    const Tensor& kept = m_fromDst ? call.output : *call.inputs[0];
    prepare(ctx, kept.size());
    m_kept.at(kept.data());
    m_diffDst.at(call.outputGrad->data());
    m_diffSrc.at(call.inputGrads[0]->data());
    m_backward.execute(ctx.stream());
    ctx.stream().wait();
  }

 private:
  static bool readsDstInBackward(dnnl::algorithm a) {
    using A = dnnl::algorithm;
    return a == A::eltwise_relu_use_dst_for_bwd || a == A::eltwise_tanh_use_dst_for_bwd ||
           a == A::eltwise_elu_use_dst_for_bwd || a == A::eltwise_logistic_use_dst_for_bwd ||
           a == A::eltwise_exp_use_dst_for_bwd || a == A::eltwise_sqrt_use_dst_for_bwd;
  }

  // Primitives, views and argument lists are built for a flat view of the tensor, and rebuilt
  // only when the size changes (Note [Primitives across steps]).
  void prepare(CpuDeviceContext& ctx, int64_t size) {
    if (size == m_size && m_forward) return;
    auto& eng = ctx.engine();
    const auto md = plainDesc(Shape{size});
    const dnnl::eltwise_forward::primitive_desc forwardPd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, m_algorithm, md, m_alpha, m_beta), eng);
    const dnnl::eltwise_backward::primitive_desc backwardPd(
        dnnl::eltwise_backward::desc(m_algorithm, md, md, m_alpha, m_beta), eng, forwardPd);
    m_src = MemoryView(md, eng);
    m_dst = MemoryView(md, eng);
    m_kept = MemoryView(md, eng);
    m_diffDst = MemoryView(md, eng);
    m_diffSrc = MemoryView(md, eng);
    m_forward = PrimitiveCall(dnnl::eltwise_forward(forwardPd));
    m_forward.bind(DNNL_ARG_SRC, m_src.memory()).bind(DNNL_ARG_DST, m_dst.memory());
    m_backward = PrimitiveCall(dnnl::eltwise_backward(backwardPd));
    m_backward.bind(m_fromDst ? DNNL_ARG_DST : DNNL_ARG_SRC, m_kept.memory())
        .bind(DNNL_ARG_DIFF_DST, m_diffDst.memory())
        .bind(DNNL_ARG_DIFF_SRC, m_diffSrc.memory());
    m_size = size;
  }

  dnnl::algorithm m_algorithm;
  float m_alpha;
  float m_beta;
  bool m_fromDst;  // backward reads the output (a *_use_dst_for_bwd algorithm)
  int64_t m_size = -1;
  MemoryView m_src, m_dst;                // forward
  MemoryView m_kept, m_diffDst, m_diffSrc;  // backward (m_kept: the forward's input or output)
  PrimitiveCall m_forward, m_backward;
};

}  // namespace

std::unique_ptr<Kernel> makeEltwiseKernel(dnnl::algorithm algorithm, float alpha, float beta) {
  return std::make_unique<EltwiseKernel>(algorithm, alpha, beta);
}

}  // namespace netsmith::cpu
