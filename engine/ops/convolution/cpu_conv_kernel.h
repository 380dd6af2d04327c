// ConvKernel: the CPU kernel shared by Convolution and Deconvolution, on oneDNN's forward,
// backward-data and backward-weights primitives (Note [Conv layouts]).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>

#include "engine/backend/cpu/dnnl_utils.h"
#include "engine/ops/op_schema.h"

namespace netsmith::cpu {

// One 2-D (de)convolution node in oneDNN's terms. Activations are (N, C, H, W) row-major.
struct ConvGeometry {
  int64_t inC = 0, inH = 0, inW = 0;     // per sample
  int64_t outC = 0, outH = 0, outW = 0;  // per sample
  bool withBias = true;
  dnnl::memory::dims strides;  // (h, w)
  dnnl::memory::dims dilates;  // (h, w); oneDNN counts from 0, so nnabla's dilation - 1
  dnnl::memory::dims padding;  // (h, w), the same on both sides
  // oneDNN's weight dims, (OC, IC, kh, kw) or with groups (G, OC/G, IC/G, kh, kw), and the tag
  // that lays them over the W blob as the op stores it.
  dnnl::memory::dims weightDims;
  dnnl::memory::format_tag weightTag = dnnl::memory::format_tag::undef;
};

// Factories of the two ops (convolution/cpu.cpp, deconvolution/cpu.cpp).
std::unique_ptr<Kernel> makeConvolutionKernel(const KernelSetup& setup);
std::unique_ptr<Kernel> makeDeconvolutionKernel(const KernelSetup& setup);

// Note [Conv layouts]: the executor's tensors are plain NCHW and the W blob plain, but oneDNN's
// fast convolutions want blocked layouts (nChw16c, OIhw16i16o, ...). Each primitive is created
// with format_tag::any and an operand whose chosen layout differs from plain is reordered into
// a buffer the kernel keeps (per batch size). The forward's reordered source and weights are
// kept for the backward pass, which always follows the latest forward of the same node with the
// same tensors (the executor keeps activations until the backward has run); a pointer check
// guards that.
template <class Fwd, class BwdData, class BwdWeights>
class ConvKernel final : public Kernel {
  using Desc = dnnl::memory::desc;
  using Tag = dnnl::memory::format_tag;

 public:
  ConvKernel(const ConvGeometry& g, dnnl::algorithm algorithm) : m_g(g), m_algorithm(algorithm) {
    // TEMP layout experiments: any | plain | nhwc.
    if (const char* v = std::getenv("NETSMITH_CONV_LAYOUT")) m_layout = v;
  }

  void forward(KernelCall& call) override {
    auto& ctx = cpuContext(call.device);
    Plan& p = plan(ctx, call.inputs[0]->dim(0));
    auto& eng = ctx.engine();
    auto& stream = ctx.stream();
    const dnnl::memory src = p.src.in(stream, eng, call.inputs[0]->data());
    const dnnl::memory weights = p.weights.in(stream, eng, call.params[0]->data());
    const dnnl::memory dst = p.dst.outTarget(eng, call.output.data());
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (m_g.withBias) args[DNNL_ARG_BIAS] = dnnl::memory(m_biasDesc, eng, call.params[1]->data());
    p.fwd.execute(stream, args);
    p.dst.finishOut(stream, eng, call.output.data());
    stream.wait();
    m_forwardSrc = call.inputs[0]->data();
    m_forwardWeights = call.params[0]->data();
  }

  void backward(KernelCall& call) override {
    const bool wantSrc = !call.inputGrads.empty() && call.inputGrads[0];
    const bool wantWeights = !call.paramGrads.empty() && call.paramGrads[0];
    const bool wantBias = m_g.withBias && call.paramGrads.size() > 1 && call.paramGrads[1];
    if (!wantSrc && !wantWeights && !wantBias) return;
    auto& ctx = cpuContext(call.device);
    Plan& p = plan(ctx, call.inputs[0]->dim(0));
    auto& eng = ctx.engine();
    auto& stream = ctx.stream();
    const float* diffDstData = call.outputGrad->data();
    dnnl::memory diffDstForData;  // reused by the weights pass when both want the same layout

    if (wantSrc) {
      buildBackwardData(p, eng);
      diffDstForData = p.bdDiffDst.in(stream, eng, diffDstData);
      dnnl::memory weights;
      if (p.weights.reordered && p.weights.wanted == p.bdWeights.wanted &&
          m_forwardWeights == call.params[0]->data())
        weights = p.weights.buffer;
      else
        weights = p.bdWeights.in(stream, eng, call.params[0]->data());
      const dnnl::memory diffSrc = p.bdDiffSrc.outTarget(eng, call.inputGrads[0]->data());
      p.bwdData.execute(stream, {{DNNL_ARG_DIFF_DST, diffDstForData},
                                 {DNNL_ARG_WEIGHTS, weights},
                                 {DNNL_ARG_DIFF_SRC, diffSrc}});
      p.bdDiffSrc.finishOut(stream, eng, call.inputGrads[0]->data());
    }

    if (wantWeights || wantBias) {
      buildBackwardWeights(p, eng);
      dnnl::memory diffDst;
      if (diffDstForData && p.bdDiffDst.wanted == p.bwDiffDst.wanted)
        diffDst = diffDstForData;
      else
        diffDst = p.bwDiffDst.in(stream, eng, diffDstData);
      dnnl::memory src;
      if (p.src.wanted == p.bwSrc.wanted && (!p.src.reordered || m_forwardSrc == call.inputs[0]->data()))
        src = p.src.reordered ? p.src.buffer : dnnl::memory(p.src.plain, eng, const_cast<float*>(call.inputs[0]->data()));
      else
        src = p.bwSrc.in(stream, eng, call.inputs[0]->data());
      dnnl::memory diffWeights;
      if (wantWeights) {
        diffWeights = p.bwDiffWeights.outTarget(eng, call.paramGrads[0]->data());
      } else {
        if (!p.weightsScratch) p.weightsScratch = dnnl::memory(p.bwDiffWeights.wanted, eng);
        diffWeights = p.weightsScratch;
      }
      std::unordered_map<int, dnnl::memory> args{
          {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, diffDst}, {DNNL_ARG_DIFF_WEIGHTS, diffWeights}};
      if (m_g.withBias) {
        if (wantBias) {
          args[DNNL_ARG_DIFF_BIAS] = dnnl::memory(m_biasDesc, eng, call.paramGrads[1]->data());
        } else {
          if (!p.biasScratch) p.biasScratch = dnnl::memory(m_biasDesc, eng);
          args[DNNL_ARG_DIFF_BIAS] = p.biasScratch;
        }
      }
      p.bwdWeights.execute(stream, args);
      if (wantWeights) p.bwDiffWeights.finishOut(stream, eng, call.paramGrads[0]->data());
    }
    stream.wait();
  }

 private:
  // One operand: our plain layout, the layout the primitive chose, and when they differ the
  // buffer in the chosen layout with the reorder between the two.
  struct Staged {
    Desc plain;
    Desc wanted;
    bool reordered = false;
    dnnl::memory buffer;
    dnnl::reorder reorder;

    void init(dnnl::engine& eng, const Desc& plainDesc, const Desc& wantedDesc, bool isInput) {
      plain = plainDesc;
      wanted = wantedDesc;
      reordered = plain != wanted;
      if (!reordered) return;
      buffer = dnnl::memory(wanted, eng);
      reorder = isInput ? dnnl::reorder(dnnl::reorder::primitive_desc(eng, plain, eng, wanted))
                        : dnnl::reorder(dnnl::reorder::primitive_desc(eng, wanted, eng, plain));
    }
    // An input: our data in the wanted layout.
    dnnl::memory in(dnnl::stream& stream, dnnl::engine& eng, const float* data) {
      dnnl::memory user(plain, eng, const_cast<float*>(data));
      if (!reordered) return user;
      reorder.execute(stream, user, buffer);
      return buffer;
    }
    // An output: where the primitive writes; finishOut then brings it to our layout.
    dnnl::memory outTarget(dnnl::engine& eng, float* data) {
      return reordered ? buffer : dnnl::memory(plain, eng, data);
    }
    void finishOut(dnnl::stream& stream, dnnl::engine& eng, float* data) {
      if (!reordered) return;
      dnnl::memory user(plain, eng, data);
      reorder.execute(stream, buffer, user);
    }
  };

  // Everything that depends on the batch size; rebuilt only when it changes.
  struct Plan {
    int64_t batch = -1;
    typename Fwd::primitive_desc fwdPd;
    Fwd fwd;
    Staged src, weights, dst;
    bool haveBackwardData = false;
    BwdData bwdData;
    Staged bdDiffDst, bdWeights, bdDiffSrc;
    bool haveBackwardWeights = false;
    BwdWeights bwdWeights;
    Staged bwSrc, bwDiffDst, bwDiffWeights;
    dnnl::memory weightsScratch, biasScratch;  // gradients nobody asked for
  };

  Desc activation(int64_t n, int64_t c, int64_t h, int64_t w, bool forPrimitive) const {
    const dnnl::memory::dims dims{n, c, h, w};
    if (!forPrimitive || m_layout == "plain") return Desc(dims, dnnl::memory::data_type::f32, Tag::nchw);
    if (m_layout == "nhwc") return Desc(dims, dnnl::memory::data_type::f32, Tag::nhwc);
    return Desc(dims, dnnl::memory::data_type::f32, Tag::any);
  }
  Desc srcDesc(int64_t n, bool forPrimitive) const { return activation(n, m_g.inC, m_g.inH, m_g.inW, forPrimitive); }
  Desc dstDesc(int64_t n, bool forPrimitive) const { return activation(n, m_g.outC, m_g.outH, m_g.outW, forPrimitive); }
  Desc weightDesc(bool forPrimitive) const {
    if (!forPrimitive || m_layout == "plain") return Desc(m_g.weightDims, dnnl::memory::data_type::f32, m_g.weightTag);
    return Desc(m_g.weightDims, dnnl::memory::data_type::f32, Tag::any);
  }

  Plan& plan(CpuDeviceContext& ctx, int64_t batch) {
    if (m_plan && m_plan->batch == batch) return *m_plan;
    m_plan.reset();
    m_forwardSrc = nullptr;
    m_forwardWeights = nullptr;
    auto p = std::make_unique<Plan>();
    auto& eng = ctx.engine();
    p->batch = batch;
    m_biasDesc = m_g.withBias ? Desc({m_g.outC}, dnnl::memory::data_type::f32, Tag::a) : Desc();
    const typename Fwd::desc d(dnnl::prop_kind::forward_training, m_algorithm, srcDesc(batch, true), weightDesc(true),
                               m_biasDesc, dstDesc(batch, true), m_g.strides, m_g.dilates, m_g.padding, m_g.padding);
    p->fwdPd = typename Fwd::primitive_desc(d, eng);
    p->fwd = Fwd(p->fwdPd);
    p->src.init(eng, srcDesc(batch, false), p->fwdPd.src_desc(), true);
    p->weights.init(eng, weightDesc(false), p->fwdPd.weights_desc(), true);
    p->dst.init(eng, dstDesc(batch, false), p->fwdPd.dst_desc(), false);
    if (std::getenv("NETSMITH_CONV_VERBOSE"))
      std::fprintf(stderr, "conv fwd %s src %d wei %d dst %d\n", p->fwdPd.impl_info_str(), p->src.reordered,
                   p->weights.reordered, p->dst.reordered);
    m_plan = std::move(p);
    return *m_plan;
  }

  void buildBackwardData(Plan& p, dnnl::engine& eng) {
    if (p.haveBackwardData) return;
    const typename BwdData::desc d(m_algorithm, srcDesc(p.batch, true), weightDesc(true), dstDesc(p.batch, true),
                                   m_g.strides, m_g.dilates, m_g.padding, m_g.padding);
    const typename BwdData::primitive_desc pd(d, eng, p.fwdPd);
    p.bwdData = BwdData(pd);
    p.bdDiffDst.init(eng, dstDesc(p.batch, false), pd.diff_dst_desc(), true);
    p.bdWeights.init(eng, weightDesc(false), pd.weights_desc(), true);
    p.bdDiffSrc.init(eng, srcDesc(p.batch, false), pd.diff_src_desc(), false);
    if (std::getenv("NETSMITH_CONV_VERBOSE"))
      std::fprintf(stderr, "conv bwd_d %s ddst %d wei %d(same as fwd %d) dsrc %d\n", pd.impl_info_str(),
                   p.bdDiffDst.reordered, p.bdWeights.reordered, p.bdWeights.wanted == p.weights.wanted,
                   p.bdDiffSrc.reordered);
    p.haveBackwardData = true;
  }

  void buildBackwardWeights(Plan& p, dnnl::engine& eng) {
    if (p.haveBackwardWeights) return;
    const typename BwdWeights::desc d(m_algorithm, srcDesc(p.batch, true), weightDesc(true), m_biasDesc,
                                      dstDesc(p.batch, true), m_g.strides, m_g.dilates, m_g.padding, m_g.padding);
    const typename BwdWeights::primitive_desc pd(d, eng, p.fwdPd);
    p.bwdWeights = BwdWeights(pd);
    p.bwSrc.init(eng, srcDesc(p.batch, false), pd.src_desc(), true);
    p.bwDiffDst.init(eng, dstDesc(p.batch, false), pd.diff_dst_desc(), true);
    p.bwDiffWeights.init(eng, weightDesc(false), pd.diff_weights_desc(), false);
    if (std::getenv("NETSMITH_CONV_VERBOSE"))
      std::fprintf(stderr, "conv bwd_w %s src %d(same as fwd %d) ddst %d(same as bwd_d %d) dwei %d\n",
                   pd.impl_info_str(), p.bwSrc.reordered, p.bwSrc.wanted == p.src.wanted, p.bwDiffDst.reordered,
                   p.bwDiffDst.wanted == p.bdDiffDst.wanted, p.bwDiffWeights.reordered);
    p.haveBackwardWeights = true;
  }

  ConvGeometry m_g;
  dnnl::algorithm m_algorithm;
  std::string m_layout = "any";
  Desc m_biasDesc;
  std::unique_ptr<Plan> m_plan;
  const float* m_forwardSrc = nullptr;      // input the forward's src buffer was filled from
  const float* m_forwardWeights = nullptr;  // W the forward's weights buffer was filled from
};

}  // namespace netsmith::cpu
