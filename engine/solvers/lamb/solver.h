// LAMB (nnabla's Lamb; You et al. 2019, "Large Batch Optimization for Deep Learning"):
//   m ← β1·m + (1 − β1)·g;   v ← β2·v + (1 − β2)·g²
//   d = (m / c1) / (√(v / c2) + ε) + λ·w      c1 = 1 − β1^t, c2 = 1 − β2^t with bias_correction,
//                                             else 1; λ is optimizer.weight_decay (decoupled)
//   w ← w − η·φ(‖w‖)/‖d‖·d      per parameter tensor, φ(z) = min(max(z, γ_l), γ_u); the ratio
//                                is 1 when ‖d‖ <= ε
// As in nnabla, a tensor whose ‖w‖ is 0 (a bias at its zero start) gets φ = γ_l: with the default
// γ_l = 0 it does not move. Note [Trust ratio]: the norms make the step two passes.
#pragma once

#include "engine/solvers/solver.h"

namespace netsmith::solvers::lamb {

// Note [Trust ratio]
// LAMB's step size depends on the norms of the whole parameter tensor, so its step is two passes
// over the elements: the first updates m and v and adds w² and d² to per-tensor sums, the second
// recomputes d (the same operations on the same m, v and the not yet updated w, so the same bits:
// no scratch buffer) and applies w ← w − scale·d with the tensor's scale from tensorScale. The
// sums are in double and in a fixed order, so the result does not depend on the thread count:
// the CPU optimizer sums each piece (vector lanes, then the tail) and adds the pieces of a tensor
// in piece order; the CUDA fused step sums each chunk in its block's tree into a table of
// per-chunk partials (first kernel) and each chunk adds its tensor's partials in chunk order
// (second kernel); the simulated GPUs run those two kernels' bodies on the host in the same order.
struct Solver {
  static constexpr const char* kName = "Lamb";
  static constexpr const char* kLrKey = "eta";
  static constexpr SolverHyperParameter kHyper[] = {
      {"eta", 0.001, SolverHyperRange::Positive, "Learning rate."},
      {"beta1", 0.9, SolverHyperRange::UnitInterval, "Decay of the running mean of the gradient, 0 to below 1."},
      {"beta2", 0.999, SolverHyperRange::UnitInterval,
       "Decay of the running mean of the squared gradient, 0 to below 1."},
      {"gamma_l", 0.0, SolverHyperRange::NonNegative, "LAMB: lower bound of the clamped weight norm."},
      {"gamma_u", 10.0, SolverHyperRange::Positive, "LAMB: upper bound of the clamped weight norm."},
      {"eps", 1e-6, SolverHyperRange::Positive, "Added to the denominator, for numerical stability."},
      {"bias_correction", 0, SolverHyperRange::Flag, "LAMB: divide the running means by 1 − β^t."},
  };
  static constexpr std::array<const char*, 2> kBuffers = {"m", "v"};
  static constexpr SolverWeightDecay kWeightDecay = SolverWeightDecay::Decoupled;
  static constexpr const char* kWeightDecayKey = nullptr;
  static constexpr bool kTrustRatio = true;

  struct Scalars {
    float b1, b2, oneMinusB1, oneMinusB2, c1, c2, eps, lambda;
    double eta, gammaL, gammaU, epsNorm;
  };
  static Scalars scalars(const StepInput& in) {
    const double b1 = in["beta1"], b2 = in["beta2"], t = double(in.t);
    const bool correct = in["bias_correction"] != 0;
    return {float(b1),
            float(b2),
            float(1.0 - b1),
            float(1.0 - b2),
            correct ? float(1.0 - std::pow(b1, t)) : 1.0f,
            correct ? float(1.0 - std::pow(b2, t)) : 1.0f,
            float(in["eps"]),
            float(in.weightDecay),
            in.lr,
            in["gamma_l"],
            in["gamma_u"],
            in["eps"]};
  }
  // lr_mult enters the tensor's scale (tensorScale), not the element's direction.
  NS_HOST_DEVICE static Scalars forSlot(Scalars s, float) { return s; }

  // First pass: the running means.
  template <typename T>
  NS_HOST_DEVICE static void moments(const Scalars& s, T g, T& m, T& v) {
    m = s.b1 * m + s.oneMinusB1 * g;
    v = s.b2 * v + s.oneMinusB2 * g * g;
  }
  // Both passes: the update direction d, from the updated m, v and the old w.
  template <typename T>
  NS_HOST_DEVICE static T direction(const Scalars& s, T w, T m, T v) {
    return (m / s.c1) / (Math<T>::sqrt(v / s.c2) + s.eps) + s.lambda * w;
  }
  // Between the passes, once per tensor: η·lr_mult·φ(‖w‖)/‖d‖ from Σw² and Σd², rounded to float once.
  NS_HOST_DEVICE static float tensorScale(const Scalars& s, double sumW2, double sumD2, float lrMult) {
    const double wNorm = sqrt(sumW2), dNorm = sqrt(sumD2);
    const double phi = fmin(fmax(wNorm, s.gammaL), s.gammaU);
    const double ratio = dNorm > s.epsNorm ? phi / dNorm : 1.0;
    return float(s.eta * ratio * double(lrMult));
  }
  // Second pass.
  template <typename T>
  NS_HOST_DEVICE static void apply(float scale, T d, T& w) {
    w -= scale * d;
  }
};

}  // namespace netsmith::solvers::lamb
