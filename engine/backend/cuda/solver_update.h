// The fused solver step's per-element work (Note [Fused solver step] in cuda_solver.cu), shared by
// the GPU kernels and the simulated GPUs' host loop. The maths are the solvers' own, one
// NS_HOST_DEVICE body per solver folder (Note [Solver folders], engine/solvers/solver.h), which
// the CPU optimizer runs too; here they are only loaded and stored.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "engine/host_device/deterministic_reduction.h"
#include "engine/optim/gradient_clip.h"
#include "engine/solvers/solver.h"

namespace netsmith::cuda::solver {

// One chunk of one parameter: kChunk floats at most, with its gradient and state.
struct Chunk {
  float* w;
  const float* g;
  float* s0;
  float* s1;
  int64_t n;
  float lrMult;   // the layer's lr_mult (Note [Frozen layers]): the solver's forSlot scales by it
  int32_t first;  // the chunks of this chunk's parameter tensor: [first, first + count) of the
  int32_t count;  // table, for the per-tensor sums of Note [Trust ratio]
};

// Element i of a chunk with solver S's update; `s` is the chunk's (S::forSlot), `wd` the L2 decay.
template <class S, bool kL2>
NS_HOST_DEVICE inline void update(const Chunk& c, int64_t i, const typename S::Scalars& s, float wd) {
  float w = c.w[i];
  float g = c.g[i];
  if (kL2) g = g + wd * w;
  if constexpr (solvers::bufferCount<S>() == 0) {
    S::update(s, g, w);
  } else if constexpr (solvers::bufferCount<S>() == 1) {
    float s0 = c.s0[i];
    S::update(s, g, w, s0);
    c.s0[i] = s0;
  } else {
    float s0 = c.s0[i], s1 = c.s1[i];
    S::update(s, g, w, s0, s1);
    c.s0[i] = s0;
    c.s1[i] = s1;
  }
  c.w[i] = w;
}

// Note [Trust ratio], first kernel: element i's running means, and its w² and d² added to the
// thread's sums (in double, where a float's square is exact).
template <class S>
NS_HOST_DEVICE inline void trustMoments(const Chunk& c, int64_t i, const typename S::Scalars& s, double& sumW2,
                                        double& sumD2) {
  const float w = c.w[i];
  float m = c.s0[i], v = c.s1[i];
  S::moments(s, c.g[i], m, v);
  const float d = S::direction(s, w, m, v);
  c.s0[i] = m;
  c.s1[i] = v;
  sumW2 += double(w) * double(w);
  sumD2 += double(d) * double(d);
}

// Second kernel: the chunk's tensor's scale, from its chunks' partial sums (Σw², Σd² each) added
// in chunk order, so every chunk of a tensor computes the same scale.
template <class S>
NS_HOST_DEVICE inline float trustScale(const Chunk& c, const double* partials, const typename S::Scalars& s) {
  double sumW2 = 0, sumD2 = 0;
  for (int32_t k = c.first; k < c.first + c.count; ++k) {
    sumW2 += partials[2 * k];
    sumD2 += partials[2 * k + 1];
  }
  return S::tensorScale(s, sumW2, sumD2, c.lrMult);
}

// Second kernel: element i's update, d recomputed from the updated m, v and the old w.
template <class S>
NS_HOST_DEVICE inline void trustApply(const Chunk& c, int64_t i, const typename S::Scalars& s, float scale) {
  float w = c.w[i];
  S::apply(scale, S::direction(s, w, c.s0[i], c.s1[i]), w);
  c.w[i] = w;
}

// The first kernel's block sum on the host: thread t of `threads` sums elements t, t + threads,
// ...; then sums[t] += sums[t + h] for h = threads / 2, ..., 1 — the GPU's tree, in its order.
// `sums` holds 2·threads doubles (Σw² then Σd² per thread); the chunk's two partials come back.
template <class S>
inline void trustBlockSums(const Chunk& c, const typename S::Scalars& s, int threads, double* sums, double* out) {
  for (int t = 0; t < threads; ++t) {
    double w2 = 0, d2 = 0;
    for (int64_t i = t; i < c.n; i += threads) trustMoments<S>(c, i, s, w2, d2);
    sums[t] = w2;
    sums[threads + t] = d2;
  }
  for (int h = threads / 2; h > 0; h /= 2)
    for (int t = 0; t < h; ++t) {
      sums[t] += sums[t + h];
      sums[threads + t] += sums[threads + t + h];
    }
  out[0] = sums[0];
  out[1] = sums[threads];
}

// Element i of the loss-scale division; returns false when the result is not finite.
NS_HOST_DEVICE inline bool unscale(const Chunk& c, int64_t i, float inverseScale) {
  float* g = const_cast<float*>(c.g);
  const float v = g[i] * inverseScale;
  g[i] = v;
#ifdef __CUDACC__
  return isfinite(v);
#else
  return std::isfinite(v);  // a host compiler (the unit tests) has it in std only
#endif
}

// ---- Note [Gradient clipping] on the device: the global norm of the gradients of the table.
// The terms of one chunk's sum of squares (laneRun's Terms: one output, term r = g[r]², in double).
struct SquaresTerms {
  using Value = double;
  const float* g;
  NS_HOST_DEVICE int64_t prepare(int64_t) const { return 0; }
  NS_HOST_DEVICE double operator()(int64_t, int64_t, int64_t r) const { return double(g[r]) * double(g[r]); }
};

// The global norm from every chunk's partial sum of squares, added in chunk order (every block of
// the clip kernel computes it alike, and gets the same bits).
NS_HOST_DEVICE inline double normOfPartials(const double* partials, int64_t chunks) {
  double sum = 0;
  for (int64_t k = 0; k < chunks; ++k) sum += partials[k];
  return ::sqrt(sum);
}

// The first kernel's block on the host: lane t of kReduceThreads adds elements t, t + 256, ...,
// then the block's tree (Note [Deterministic GPU reductions]) — the GPU's order. `lanes` holds
// kReduceThreads doubles.
inline double squaresBlockSum(const Chunk& c, double* lanes) {
  const SquaresTerms terms{c.g};
  for (int t = 0; t < kReduceThreads; ++t) lanes[t] = laneRun(terms, 0, 0, c.n, t);
  for (int width = kReduceThreads / 2; width > 0; width /= 2)
    for (int t = 0; t < width; ++t) treeStep(lanes, t, width);
  return lanes[0];
}

// Element i of the clip: g ← g · scale.
NS_HOST_DEVICE inline void scaleGradient(const Chunk& c, int64_t i, float scale) { const_cast<float*>(c.g)[i] *= scale; }

}  // namespace netsmith::cuda::solver
