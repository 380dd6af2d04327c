// The fused solver step's per-element update (Note [Fused solver step] in cuda_solver.cu), shared
// by the GPU kernel and the simulated GPUs' host loop.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "engine/backend/host_device/host_device.h"

namespace netsmith::cuda::solver {

// One chunk of one parameter: kChunk floats at most, with its gradient and state.
struct Chunk {
  float* w;
  const float* g;
  float* s0;
  float* s1;
  int64_t n;
  float lrMult;  // the layer's lr_mult (Note [Frozen layers]): scales lr, alpha_t and AdamW's decay
};

enum class Kind { Sgd, Momentum, Nesterov, Adagrad, RmsProp, Adam, AdamW };

struct StepScalars {
  float lr, wd, mu, onePlusMu, eps, rho, oneMinusRho, b1, b2, oneMinusB1, oneMinusB2, alphaT, etaWd;
};

// Element i of a chunk; the same maths as Optimizer's (Note [Solver kernels]).
template <Kind K, bool kL2>
NS_HOST_DEVICE inline void update(const Chunk& c, int64_t i, const StepScalars& s) {
  float w = c.w[i];
  float g = c.g[i];
  if (kL2) g = g + s.wd * w;
  const float lr = s.lr * c.lrMult;  // × 1 is exact: lr_mult 1 changes nothing
  if constexpr (K == Kind::Sgd) {
    w -= lr * g;
  } else if constexpr (K == Kind::Momentum) {
    const float v = s.mu * c.s0[i] + lr * g;
    c.s0[i] = v;
    w -= v;
  } else if constexpr (K == Kind::Nesterov) {
    const float prev = c.s0[i];
    const float v = s.mu * prev - lr * g;
    c.s0[i] = v;
    w += -s.mu * prev + s.onePlusMu * v;
  } else if constexpr (K == Kind::Adagrad) {
    const float acc = c.s0[i] + g * g;
    c.s0[i] = acc;
    w -= lr * g / (sqrtf(acc) + s.eps);
  } else if constexpr (K == Kind::RmsProp) {
    const float v = c.s0[i] * s.rho + g * g * s.oneMinusRho;
    c.s0[i] = v;
    w -= lr / (sqrtf(v) + s.eps) * g;
  } else {
    const float m = s.b1 * c.s0[i] + s.oneMinusB1 * g;
    const float v = s.b2 * c.s1[i] + s.oneMinusB2 * g * g;
    c.s0[i] = m;
    c.s1[i] = v;
    float next = w - (s.alphaT * c.lrMult) * m / (sqrtf(v) + s.eps);
    if constexpr (K == Kind::AdamW) next -= (s.etaWd * c.lrMult) * w;
    w = next;
  }
  c.w[i] = w;
}

// Calls f(kind, l2) with the solver kind and "weight decay as L2" as compile-time constants
// (std::integral_constant, std::bool_constant), so the GPU kernel and the simulated GPUs' host
// loop instantiate update<K, kL2> from one dispatch.
template <typename F>
void withUpdate(Kind kind, bool l2, F&& f) {
  const auto go = [&](auto k) {
    if (l2) f(k, std::true_type{});
    else f(k, std::false_type{});
  };
  switch (kind) {
    case Kind::Sgd: go(std::integral_constant<Kind, Kind::Sgd>{}); break;
    case Kind::Momentum: go(std::integral_constant<Kind, Kind::Momentum>{}); break;
    case Kind::Nesterov: go(std::integral_constant<Kind, Kind::Nesterov>{}); break;
    case Kind::Adagrad: go(std::integral_constant<Kind, Kind::Adagrad>{}); break;
    case Kind::RmsProp: go(std::integral_constant<Kind, Kind::RmsProp>{}); break;
    case Kind::Adam: go(std::integral_constant<Kind, Kind::Adam>{}); break;
    case Kind::AdamW: go(std::integral_constant<Kind, Kind::AdamW>{}); break;
  }
}

// Element i of the loss-scale division; returns false when the result is not finite.
NS_HOST_DEVICE inline bool unscale(const Chunk& c, int64_t i, float inverseScale) {
  float* g = const_cast<float*>(c.g);
  const float v = g[i] * inverseScale;
  g[i] = v;
  return isfinite(v);
}

}  // namespace netsmith::cuda::solver
