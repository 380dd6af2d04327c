// Affine on oneDNN's inner product. The (N, ...) input is viewed as a (rows, inner) matrix,
// rows = N × the kept axes. W stays in nnabla's (inner, outmaps) layout: for oneDNN, whose
// weights are (OC, IC), that is the `io` (ba) tag, which its GEMM-based inner product reads as
// a transposed matrix, so neither W nor its gradient is ever reordered in float32. In bfloat16
// (Note [CPU bfloat16]) source, weights and incoming gradient are converted into kernel-held
// bf16 buffers, each once per step: the backward pass reuses what the forward converted.
#include <memory>

#include "engine/backend/cpu/cpu_precision.h"
#include "engine/backend/cpu/dnnl_utils.h"
#include "engine/backend/cpu/post_ops.h"
#include "engine/backend/cpu/primitive_call.h"
#include "engine/backend/cpu/staged_memory.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

using Desc = dnnl::memory::desc;
using Tag = dnnl::memory::format_tag;
using Type = dnnl::memory::data_type;
constexpr auto kF32 = Type::f32;

class AffineKernel final : public Kernel {
 public:
  // compute: the type the primitives read source, weights and incoming gradient in (f32, or
  // bf16: Note [CPU bfloat16], converted through StagedMemory); they always write float32.
  AffineKernel(int64_t rowsPerSample, int64_t inner, int64_t outmaps, bool withBias, Type compute)
      : m_rowsPerSample(rowsPerSample),
        m_withBias(withBias),
        m_compute(compute),
        m_weights({outmaps, inner}, kF32, Tag::io),
        m_bias(withBias ? Desc({outmaps}, kF32, Tag::a) : Desc()) {}

  bool fuseRelu() override {
    m_fusedRelu = true;
    m_plan = Plan();
    return true;
  }

  void forward(KernelCall& call) override {
    auto& ctx = cpuContext(call.device);
    Plan& p = plan(ctx, call.inputs[0]->dim(0));
    auto& stream = ctx.stream();
    p.fwd.bind(DNNL_ARG_SRC, p.src.in(stream, call.inputs[0]->data()))
        .bind(DNNL_ARG_WEIGHTS, p.weights.in(stream, call.params[0]->data()));
    p.dst.at(call.output.data());
    if (m_withBias) p.bias.at(call.params[1]->data());
    p.fwd.execute(stream);
    stream.wait();
  }

  void backward(KernelCall& call) override {
    const bool wantSrc = !call.inputGrads.empty() && call.inputGrads[0];
    const bool wantWeights = !call.paramGrads.empty() && call.paramGrads[0];
    const bool wantBias = m_withBias && call.paramGrads.size() > 1 && call.paramGrads[1];
    if (!wantSrc && !wantWeights && !wantBias) return;
    auto& ctx = cpuContext(call.device);
    Plan& p = plan(ctx, call.inputs[0]->dim(0));
    auto& eng = ctx.engine();
    auto& stream = ctx.stream();
    // The forward of this step staged the same source and weights; diff_dst is staged once for both passes.
    const dnnl::memory& diffDst = p.diffDst.in(stream, call.outputGrad->data());
    if (wantSrc) {
      if (!p.bwdData) {
        const dnnl::inner_product_backward_data::primitive_desc pd({p.plainSrc, p.weights.wanted, p.diffDst.wanted},
                                                                   eng, p.fwdPd);
        p.bwdData = PrimitiveCall(dnnl::inner_product_backward_data(pd));
        p.diffSrc = MemoryView(p.plainSrc, eng);
        p.bwdData.bind(DNNL_ARG_DIFF_SRC, p.diffSrc.memory());
      }
      p.bwdData.bind(DNNL_ARG_DIFF_DST, diffDst)
          .bind(DNNL_ARG_WEIGHTS, p.weights.reuseOrIn(stream, call.params[0]->data()));
      p.diffSrc.at(call.inputGrads[0]->data());
      p.bwdData.execute(stream);
    }
    if (wantWeights || wantBias) {
      if (!p.bwdWeights) {
        const dnnl::inner_product_backward_weights::primitive_desc pd(
            {p.src.wanted, m_weights, m_bias, p.diffDst.wanted}, eng, p.fwdPd);
        p.bwdWeights = PrimitiveCall(dnnl::inner_product_backward_weights(pd));
        p.diffWeights = MemoryView(m_weights, eng);
        if (m_withBias) p.diffBias = MemoryView(m_bias, eng);
      }
      // A gradient nobody asked for still needs somewhere to go.
      if (!wantWeights && !m_weightsScratch) m_weightsScratch = dnnl::memory(m_weights, eng);
      if (m_withBias && !wantBias && !m_biasScratch) m_biasScratch = dnnl::memory(m_bias, eng);
      p.bwdWeights.bind(DNNL_ARG_SRC, p.src.reuseOrIn(stream, call.inputs[0]->data()))
          .bind(DNNL_ARG_DIFF_DST, diffDst)
          .bind(DNNL_ARG_DIFF_WEIGHTS, wantWeights ? p.diffWeights.at(call.paramGrads[0]->data()) : m_weightsScratch);
      if (m_withBias)
        p.bwdWeights.bind(DNNL_ARG_DIFF_BIAS, wantBias ? p.diffBias.at(call.paramGrads[1]->data()) : m_biasScratch);
      p.bwdWeights.execute(stream);
    }
    stream.wait();
  }

 private:
  // Everything that depends on the batch size, made once per batch size (Note [Primitives
  // across steps]); the backward primitives on first use.
  struct Plan {
    int64_t batch = -1;
    Desc plainSrc, plainDst;       // (rows, inner), (rows, outmaps), float32
    StagedMemory src, weights;     // in the compute type (no copy in float32)
    StagedMemory diffDst;          // (rows, outmaps) in the compute type
    MemoryView dst, bias;          // the forward's output and bias
    MemoryView diffSrc, diffWeights, diffBias;
    dnnl::inner_product_forward::primitive_desc fwdPd;
    PrimitiveCall fwd;
    PrimitiveCall bwdData;     // built on first use
    PrimitiveCall bwdWeights;  // built on first use
  };

  Plan& plan(CpuDeviceContext& ctx, int64_t batch) {
    if (m_plan.batch == batch) return m_plan;
    auto& eng = ctx.engine();
    const dnnl::memory::dims w = m_weights.dims();  // (outmaps, inner)
    Plan p;
    p.batch = batch;
    const int64_t rows = batch * m_rowsPerSample;
    p.plainSrc = Desc({rows, w[1]}, kF32, Tag::ab);
    p.plainDst = Desc({rows, w[0]}, kF32, Tag::ab);
    const Desc src({rows, w[1]}, m_compute, Tag::ab), weights(w, m_compute, Tag::io);
    const dnnl::inner_product_forward::desc d(dnnl::prop_kind::forward_training, src, weights, m_bias, p.plainDst);
    p.fwdPd = dnnl::inner_product_forward::primitive_desc(d, reluPostOp(m_fusedRelu), eng);
    p.src.init(eng, p.plainSrc, src, true);
    p.weights.init(eng, m_weights, weights, true);
    p.diffDst.init(eng, p.plainDst, Desc({rows, w[0]}, m_compute, Tag::ab), true);
    p.dst = MemoryView(p.plainDst, eng);
    p.fwd = PrimitiveCall(dnnl::inner_product_forward(p.fwdPd));
    p.fwd.bind(DNNL_ARG_DST, p.dst.memory());
    if (m_withBias) {
      p.bias = MemoryView(m_bias, eng);
      p.fwd.bind(DNNL_ARG_BIAS, p.bias.memory());
    }
    m_plan = std::move(p);
    return m_plan;
  }

  int64_t m_rowsPerSample;
  bool m_withBias;
  Type m_compute;
  bool m_fusedRelu = false;  // Note [Fused ReLU]
  Desc m_weights;  // (outmaps, inner) over W's (inner, outmaps) memory, float32
  Desc m_bias;     // zero without with_bias
  Plan m_plan;
  dnnl::memory m_weightsScratch, m_biasScratch;  // gradients nobody asked for
};

}  // namespace

std::unique_ptr<Kernel> makeAffineKernel(const KernelSetup& setup) {
  const Shape& in = setup.inputShapes.at(0);
  const Shape& out = setup.outputShape;
  const Shape outmaps = setup.params.ints("n_outmaps");
  // The kept axes are the output's axes before n_outmaps.
  const size_t kept = out.size() - outmaps.size();
  const int64_t rowsPerSample = numel(Shape(out.begin(), out.begin() + static_cast<ptrdiff_t>(kept)));
  const int64_t inner = numel(in) / rowsPerSample;
  return std::make_unique<AffineKernel>(rowsPerSample, inner, numel(outmaps), setup.params.flag("with_bias"),
                                        computeType(cpuContext(setup.device).precision()));
}

}  // namespace netsmith::cpu
