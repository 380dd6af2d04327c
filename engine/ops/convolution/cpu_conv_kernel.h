// ConvKernel: the CPU kernel shared by Convolution and Deconvolution, on oneDNN's forward,
// backward-data and backward-weights primitives (Note [Conv layouts], Note [Conv chunks]).
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>

#include "engine/backend/cpu/cpu_precision.h"
#include "engine/backend/cpu/dnnl_utils.h"
#include "engine/backend/cpu/post_ops.h"
#include "engine/backend/cpu/primitive_call.h"
#include "engine/backend/cpu/staged_memory.h"
#include "engine/op_interface/op_schema.h"

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

// The geometry both ops share (shapes, stride, dilation, padding, bias); weights are op-specific.
inline ConvGeometry convGeometryOf(const KernelSetup& setup) {
  const Shape& in = setup.inputShapes.at(0);
  const Shape& out = setup.outputShape;
  const OpParams& p = setup.params;
  const auto stride = p.ints("stride"), dilation = p.ints("dilation"), pad = p.ints("pad");
  ConvGeometry g;
  g.inC = in[0], g.inH = in[1], g.inW = in[2];
  g.outC = out[0], g.outH = out[1], g.outW = out[2];
  g.withBias = p.flag("with_bias");
  g.strides = {stride[0], stride[1]};
  g.dilates = {dilation[0] - 1, dilation[1] - 1};
  g.padding = {pad[0], pad[1]};
  return g;
}

// Factories of the two ops (convolution/cpu.cpp, deconvolution/cpu.cpp).
std::unique_ptr<Kernel> makeConvolutionKernel(const KernelSetup& setup);
std::unique_ptr<Kernel> makeDeconvolutionKernel(const KernelSetup& setup);

// Note [Conv layouts]: the executor's tensors are plain NCHW and the W blob plain, but oneDNN's
// fast convolutions want blocked layouts (nChw16c, OIhw16i16o, ...); its plain-layout (GEMM)
// convolutions are 2-4× slower. So each primitive is created with format_tag::any, and an
// operand whose chosen layout differs from plain is reordered through a buffer the kernel keeps.
// The forward's reordered weights, and its reordered source where still there, serve the
// backward pass: the executor runs a node's backward right after the training forward of the
// same step, with the same tensors (a pointer check guards the source).
//
// Note [Conv chunks]: a reorder of a whole batch streams the blocked copy through main memory
// twice (written by one primitive, read by the next); on LeNet's first layer that took as long
// as the convolution. The batch is therefore run in chunks of images sized so that a chunk's
// blocked source and destination stay in L2 (~1 MiB); each chunk is reordered and convolved
// while hot (~40% off LeNet's first layer, forward and backward). Forward and backward-data
// chunks are independent; backward-weights adds the chunks' gradients in a fixed order, and the
// chunking depends only on the layer's shape, the batch size and the device's thread count, so
// results stay reproducible. Backward-weights is chunked only on a single-thread device: with
// more threads oneDNN's kernel reduces across them behind spin barriers, and a call per chunk
// multiplied those barriers; on a busy machine (a thread spinning while its peer is descheduled)
// that made LeNet's backward-weights 3× slower and worse.
template <class Fwd, class BwdData, class BwdWeights>
class ConvKernel final : public Kernel {
  using Desc = dnnl::memory::desc;
  using Tag = dnnl::memory::format_tag;
  using Type = dnnl::memory::data_type;
  using Staged = StagedMemory;
  static constexpr auto kF32 = Type::f32;
  static constexpr int64_t kChunkBytes = int64_t{1} << 20;

 public:
  // compute: the type the primitives read source, weights and incoming gradient in (f32, or
  // bf16: Note [CPU bfloat16]); they always write float32.
  ConvKernel(const ConvGeometry& g, dnnl::algorithm algorithm, Type compute)
      : m_g(g),
        m_algorithm(algorithm),
        m_compute(compute),
        m_inSize(g.inC * g.inH * g.inW),
        m_outSize(g.outC * g.outH * g.outW),
        m_biasDesc(g.withBias ? Desc({g.outC}, kF32, Tag::a) : Desc()) {}

  bool fuseRelu() override {
    m_fusedRelu = true;
    m_plan.reset();
    return true;
  }

  void forward(KernelCall& call) override {
    auto& ctx = cpuContext(call.device);
    const int64_t batch = call.inputs[0]->dim(0);
    Plan& p = plan(ctx, batch);
    auto& stream = ctx.stream();
    const float* x = call.inputs[0]->data();
    float* y = call.output.data();
    p.fwd.bind(DNNL_ARG_WEIGHTS, p.weights.in(stream, call.params[0]->data()));
    if (m_g.withBias) p.bias.at(call.params[1]->data());
    for (int64_t n = 0; n < batch; n += p.chunk) {
      p.fwd.bind(DNNL_ARG_SRC, p.src.in(stream, x + n * m_inSize));
      p.fwd.bind(DNNL_ARG_DST, p.dst.outTarget(y + n * m_outSize));
      p.fwd.execute(stream);
      p.dst.finishOut(stream, y + n * m_outSize);
    }
    stream.wait();
  }

  void backward(KernelCall& call) override {
    const bool wantSrc = !call.inputGrads.empty() && call.inputGrads[0];
    const bool wantWeights = !call.paramGrads.empty() && call.paramGrads[0];
    const bool wantBias = m_g.withBias && call.paramGrads.size() > 1 && call.paramGrads[1];
    if (!wantSrc && !wantWeights && !wantBias) return;
    auto& ctx = cpuContext(call.device);
    const int64_t batch = call.inputs[0]->dim(0);
    Plan& p = plan(ctx, batch);
    auto& eng = ctx.engine();
    auto& stream = ctx.stream();
    const float* x = call.inputs[0]->data();
    const float* dy = call.outputGrad->data();
    const float* w = call.params[0]->data();

    if (wantSrc) {
      buildBackwardData(p, eng);
      p.bwdData.bind(DNNL_ARG_WEIGHTS, p.weights.reordered && p.weights.wanted == p.bdWeights.wanted &&
                                               p.weights.filledFrom == w
                                           ? p.weights.buffer
                                           : p.bdWeights.in(stream, w));
    }
    const bool wantWeightsPass = wantWeights || wantBias;
    if (wantWeightsPass) buildBackwardWeights(p, eng);
    // The first chunk's weight gradient goes straight to its destination, later ones are added.
    const dnnl::memory* diffWeights = nullptr;
    const dnnl::memory* diffBias = nullptr;
    if (wantWeightsPass) {
      diffWeights = wantWeights ? &p.bwDiffWeights.outTarget(call.paramGrads[0]->data())
                                : &scratch(p.weightsScratch, p.bwDiffWeights.wanted, eng);
      if (m_g.withBias)
        diffBias = wantBias ? &p.diffBias.at(call.paramGrads[1]->data()) : &scratch(p.biasScratch, m_biasDesc, eng);
    }

    // Returns the chunk's diff_dst in backward-data's layout, for the weights pass to share.
    const auto dataChunk = [&](int64_t n) {
      float* dx = call.inputGrads[0]->data() + n * m_inSize;
      const dnnl::memory& diffDst = p.bdDiffDst.in(stream, dy + n * m_outSize);
      p.bwdData.bind(DNNL_ARG_DIFF_DST, diffDst).bind(DNNL_ARG_DIFF_SRC, p.bdDiffSrc.outTarget(dx));
      p.bwdData.execute(stream);
      p.bdDiffSrc.finishOut(stream, dx);
      return &diffDst;
    };
    bool first = true;
    const auto weightsChunk = [&](int64_t n, const dnnl::memory* sharedDiffDst) {
      const float* xn = x + n * m_inSize;
      const bool srcInForwardBuffer = p.bwSrc.wanted == p.src.wanted && p.src.reordered && p.src.filledFrom == xn;
      const bool shareDiffDst = sharedDiffDst && p.bdDiffDst.wanted == p.bwDiffDst.wanted;
      p.bwdWeights.bind(DNNL_ARG_SRC, srcInForwardBuffer ? p.src.buffer : p.bwSrc.in(stream, xn))
          .bind(DNNL_ARG_DIFF_DST, shareDiffDst ? *sharedDiffDst : p.bwDiffDst.in(stream, dy + n * m_outSize))
          .bind(DNNL_ARG_DIFF_WEIGHTS, first ? *diffWeights : scratch(p.weightsPartial, p.bwDiffWeights.wanted, eng));
      if (m_g.withBias)
        p.bwdWeights.bind(DNNL_ARG_DIFF_BIAS, first ? *diffBias : scratch(p.biasPartial, m_biasDesc, eng));
      p.bwdWeights.execute(stream);
      if (!first) {
        addInto(*diffWeights, p.weightsPartial);
        if (m_g.withBias) addInto(*diffBias, p.biasPartial);
      }
      first = false;
    };
    // Last chunk first: its source may still be in the forward's buffer, and in cache.
    if (p.weightsChunk == p.chunk) {
      for (int64_t n = batch - p.chunk; n >= 0; n -= p.chunk) {
        const dnnl::memory* diffDst = wantSrc ? dataChunk(n) : nullptr;
        if (wantWeightsPass) weightsChunk(n, diffDst);
      }
    } else {
      if (wantSrc)
        for (int64_t n = batch - p.chunk; n >= 0; n -= p.chunk) dataChunk(n);
      if (wantWeightsPass)
        for (int64_t n = batch - p.weightsChunk; n >= 0; n -= p.weightsChunk) weightsChunk(n, nullptr);
    }
    if (wantWeights) p.bwDiffWeights.finishOut(stream, call.paramGrads[0]->data());
    stream.wait();
  }

 private:
  // Everything that depends on the batch size; rebuilt only when it changes. Primitives are
  // made for `chunk` images (Note [Conv chunks]); their memories and argument lists with them
  // (Note [Primitives across steps]).
  struct Plan {
    int64_t batch = -1;
    int64_t chunk = 0;         // images per forward and backward-data call
    int64_t weightsChunk = 0;  // images per backward-weights call
    typename Fwd::primitive_desc fwdPd;
    PrimitiveCall fwd;
    Staged src, weights, dst;
    MemoryView bias;            // the forward's bias (with_bias)
    bool haveBackwardData = false;
    PrimitiveCall bwdData;
    Staged bdDiffDst, bdWeights, bdDiffSrc;
    bool haveBackwardWeights = false;
    PrimitiveCall bwdWeights;
    Staged bwSrc, bwDiffDst, bwDiffWeights;
    MemoryView diffBias;        // the bias gradient (with_bias)
    dnnl::memory weightsPartial, biasPartial;  // a later chunk's gradients, before adding
    dnnl::memory weightsScratch, biasScratch;  // gradients nobody asked for
  };

  static dnnl::memory& scratch(dnnl::memory& m, const Desc& d, dnnl::engine& eng) {
    if (!m) m = dnnl::memory(d, eng);
    return m;
  }

  // Element-wise sum of two buffers of one layout (blocked padding is zero in both).
  static void addInto(const dnnl::memory& acc, const dnnl::memory& part) {
    float* a = static_cast<float*>(acc.get_data_handle());
    const float* b = static_cast<const float*>(part.get_data_handle());
    const auto n = static_cast<int64_t>(acc.get_desc().get_size() / sizeof(float));
    for (int64_t i = 0; i < n; ++i) a[i] += b[i];
  }

  // Images per primitive call: a divisor of the batch near kChunkBytes of plain source plus
  // destination, or the whole batch when it has no divisor near that.
  int64_t chunkFor(int64_t batch) const {
    const int64_t perImage = static_cast<int64_t>(sizeof(float)) * (m_inSize + m_outSize);
    const int64_t target = std::max<int64_t>(1, kChunkBytes / perImage);
    if (batch <= target) return batch;
    int64_t best = 1;
    for (int64_t d = 1; d <= std::min(batch, 2 * target); ++d)
      if (batch % d == 0 && std::fabs(std::log(double(d) / target)) < std::fabs(std::log(double(best) / target)))
        best = d;
    return best * 4 < target ? batch : best;
  }

  // Plain descriptors are float32 (the executor's tensors); the `any` ones of the primitives
  // take the compute type for what is read as a product operand, float32 for what is written.
  Desc activation(int64_t n, int64_t c, int64_t h, int64_t w, Tag tag, Type t) const { return Desc({n, c, h, w}, t, tag); }
  Desc srcDesc(int64_t n, Tag tag = Tag::nchw, Type t = kF32) const {
    return activation(n, m_g.inC, m_g.inH, m_g.inW, tag, t);
  }
  Desc dstDesc(int64_t n, Tag tag = Tag::nchw, Type t = kF32) const {
    return activation(n, m_g.outC, m_g.outH, m_g.outW, tag, t);
  }
  Desc weightDesc(Tag tag, Type t = kF32) const { return Desc(m_g.weightDims, t, tag); }
  Desc plainWeights() const { return weightDesc(m_g.weightTag); }

  Plan& plan(CpuDeviceContext& ctx, int64_t batch) {
    if (m_plan && m_plan->batch == batch) return *m_plan;
    m_plan.reset();
    auto p = std::make_unique<Plan>();
    auto& eng = ctx.engine();
    p->batch = batch;
    p->chunk = chunkFor(batch);
    buildForward(*p, eng);
    // Chunks only pay for themselves by keeping reordered activations in cache.
    if (p->chunk < batch && !p->src.reordered && !p->dst.reordered) {
      p = std::make_unique<Plan>();
      p->batch = p->chunk = batch;
      buildForward(*p, eng);
    }
    p->weightsChunk = ctx.threads() == 1 ? p->chunk : batch;
    m_plan = std::move(p);
    return *m_plan;
  }

  typename Fwd::desc forwardDesc(int64_t n) const {
    return typename Fwd::desc(dnnl::prop_kind::forward_training, m_algorithm, srcDesc(n, Tag::any, m_compute),
                              weightDesc(Tag::any, m_compute), m_biasDesc, dstDesc(n, Tag::any), m_g.strides, m_g.dilates,
                              m_g.padding, m_g.padding);
  }

  void buildForward(Plan& p, dnnl::engine& eng) {
    const int64_t n = p.chunk;
    p.fwdPd = typename Fwd::primitive_desc(forwardDesc(n), reluPostOp(m_fusedRelu), eng);
    p.fwd = PrimitiveCall(Fwd(p.fwdPd));
    p.src.init(eng, srcDesc(n), p.fwdPd.src_desc(), true);
    p.weights.init(eng, plainWeights(), p.fwdPd.weights_desc(), true);
    p.dst.init(eng, dstDesc(n), p.fwdPd.dst_desc(), false);
    if (m_g.withBias) {
      p.bias = MemoryView(m_biasDesc, eng);
      p.fwd.bind(DNNL_ARG_BIAS, p.bias.memory());
    }
  }

  void buildBackwardData(Plan& p, dnnl::engine& eng) {
    if (p.haveBackwardData) return;
    const int64_t n = p.chunk;
    const typename BwdData::desc d(m_algorithm, srcDesc(n, Tag::any), weightDesc(Tag::any, m_compute),
                                   dstDesc(n, Tag::any, m_compute),
                                   m_g.strides, m_g.dilates, m_g.padding, m_g.padding);
    const typename BwdData::primitive_desc pd(d, eng, p.fwdPd);
    p.bwdData = PrimitiveCall(BwdData(pd));
    p.bdDiffDst.init(eng, dstDesc(n), pd.diff_dst_desc(), true);
    p.bdWeights.init(eng, plainWeights(), pd.weights_desc(), true);
    p.bdDiffSrc.init(eng, srcDesc(n), pd.diff_src_desc(), false);
    p.haveBackwardData = true;
  }

  void buildBackwardWeights(Plan& p, dnnl::engine& eng) {
    if (p.haveBackwardWeights) return;
    const int64_t n = p.weightsChunk;
    // The forward hint describes the same problem, so a batch of n images too.
    typename Fwd::primitive_desc hint = p.fwdPd;
    if (n != p.chunk) hint = typename Fwd::primitive_desc(forwardDesc(n), reluPostOp(m_fusedRelu), eng);
    const typename BwdWeights::desc d(m_algorithm, srcDesc(n, Tag::any, m_compute), weightDesc(Tag::any), m_biasDesc,
                                      dstDesc(n, Tag::any, m_compute), m_g.strides, m_g.dilates, m_g.padding,
                                      m_g.padding);
    const typename BwdWeights::primitive_desc pd(d, eng, hint);
    p.bwdWeights = PrimitiveCall(BwdWeights(pd));
    if (m_g.withBias) p.diffBias = MemoryView(m_biasDesc, eng);
    p.bwSrc.init(eng, srcDesc(n), pd.src_desc(), true);
    p.bwDiffDst.init(eng, dstDesc(n), pd.diff_dst_desc(), true);
    p.bwDiffWeights.init(eng, plainWeights(), pd.diff_weights_desc(), false);
    p.haveBackwardWeights = true;
  }

  ConvGeometry m_g;
  dnnl::algorithm m_algorithm;
  Type m_compute;
  bool m_fusedRelu = false;  // Note [Fused ReLU]
  int64_t m_inSize;   // C×H×W of one input image
  int64_t m_outSize;  // of one output image
  Desc m_biasDesc;    // zero (no bias) without with_bias
  std::unique_ptr<Plan> m_plan;
};

}  // namespace netsmith::cpu
