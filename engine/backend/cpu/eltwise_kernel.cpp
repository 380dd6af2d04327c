#include "engine/backend/cpu/eltwise_kernel.h"

#include "engine/backend/cpu/dnnl_utils.h"

namespace netsmith::cpu {
namespace {

class EltwiseKernel final : public Kernel {
 public:
  EltwiseKernel(dnnl::algorithm algorithm, float alpha, float beta)
      : m_algorithm(algorithm), m_alpha(alpha), m_beta(beta), m_fromDst(readsDstInBackward(algorithm)) {}

  void forward(KernelCall& call) override {
    auto& ctx = cpuContext(call.device);
    prepare(ctx, call.inputs[0]->size());
    const Shape flat{call.inputs[0]->size()};
    dnnl::eltwise_forward(*m_forwardPd)
        .execute(ctx.stream(), {{DNNL_ARG_SRC, wrap(ctx, *call.inputs[0], flat)},
                                {DNNL_ARG_DST, wrap(ctx, call.output, flat)}});
    ctx.stream().wait();
  }

  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    auto& ctx = cpuContext(call.device);
    // From the output: the input may never have been written (Note [Fused ReLU]).
    const Tensor& kept = m_fromDst ? call.output : *call.inputs[0];
    prepare(ctx, kept.size());
    const Shape flat{kept.size()};
    dnnl::eltwise_backward(*m_backwardPd)
        .execute(ctx.stream(), {{m_fromDst ? DNNL_ARG_DST : DNNL_ARG_SRC, wrap(ctx, kept, flat)},
                                {DNNL_ARG_DIFF_DST, wrap(ctx, *call.outputGrad, flat)},
                                {DNNL_ARG_DIFF_SRC, wrap(ctx, *call.inputGrads[0], flat)}});
    ctx.stream().wait();
  }

 private:
  static bool readsDstInBackward(dnnl::algorithm a) {
    using A = dnnl::algorithm;
    return a == A::eltwise_relu_use_dst_for_bwd || a == A::eltwise_tanh_use_dst_for_bwd ||
           a == A::eltwise_elu_use_dst_for_bwd || a == A::eltwise_logistic_use_dst_for_bwd ||
           a == A::eltwise_exp_use_dst_for_bwd || a == A::eltwise_sqrt_use_dst_for_bwd;
  }

  // Primitives are built for a flat view of the tensor and rebuilt only when the size changes.
  void prepare(CpuDeviceContext& ctx, int64_t size) {
    if (size == m_size && m_forwardPd) return;
    const auto md = plainDesc(Shape{size});
    m_forwardPd = std::make_unique<dnnl::eltwise_forward::primitive_desc>(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, m_algorithm, md, m_alpha, m_beta), ctx.engine());
    m_backwardPd = std::make_unique<dnnl::eltwise_backward::primitive_desc>(
        dnnl::eltwise_backward::desc(m_algorithm, md, md, m_alpha, m_beta), ctx.engine(), *m_forwardPd);
    m_size = size;
  }

  dnnl::algorithm m_algorithm;
  float m_alpha;
  float m_beta;
  bool m_fromDst;  // backward reads the output (a *_use_dst_for_bwd algorithm)
  int64_t m_size = -1;
  std::unique_ptr<dnnl::eltwise_forward::primitive_desc> m_forwardPd;
  std::unique_ptr<dnnl::eltwise_backward::primitive_desc> m_backwardPd;
};

}  // namespace

std::unique_ptr<Kernel> makeEltwiseKernel(dnnl::algorithm algorithm, float alpha, float beta) {
  return std::make_unique<EltwiseKernel>(algorithm, alpha, beta);
}

}  // namespace netsmith::cpu
