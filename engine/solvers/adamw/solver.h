// AdamW (nnabla, Loshchilov & Hutter): Adam's update plus a decoupled decay that follows the
// schedule:
//   m ← β1·m + (1 − β1)·g;   v ← β2·v + (1 − β2)·g²;   α_t = α·√(1 − β2^t) / (1 − β1^t)
//   η_t = α / α_base;   w ← w − α_t·m / (√v + ε) − η_t·wd·w      (w on the right is the old w)
// wd is optimizer.weight_decay, which nnabla calls wd: either key may hold it (not both).
#pragma once

#include "engine/solvers/solver.h"

namespace netsmith::solvers::adamw {

struct Solver {
  static constexpr const char* kName = "AdamW";
  static constexpr const char* kLrKey = "alpha";
  static constexpr SolverHyperParameter kHyper[] = {
      {"alpha", 0.001, SolverHyperRange::Positive, "Learning rate."},
      {"beta1", 0.9, SolverHyperRange::UnitInterval, "Decay of the running mean of the gradient, 0 to below 1."},
      {"beta2", 0.999, SolverHyperRange::UnitInterval,
       "Decay of the running mean of the squared gradient, 0 to below 1."},
      {"eps", 1e-8, SolverHyperRange::Positive, "Added to the denominator, for numerical stability."},
      {"wd", 0.0, SolverHyperRange::NonNegative,
       "AdamW's decoupled weight decay: the same value as Weight decay; set one of them."},
  };
  static constexpr std::array<const char*, 2> kBuffers = {"m", "v"};
  static constexpr SolverWeightDecay kWeightDecay = SolverWeightDecay::Decoupled;
  static constexpr const char* kWeightDecayKey = "wd";

  struct Scalars {
    float b1, b2, oneMinusB1, oneMinusB2, alphaT, eps, etaWd;
  };
  static Scalars scalars(const StepInput& in) {
    const double b1 = in["beta1"], b2 = in["beta2"], t = double(in.t);
    return {float(b1),
            float(b2),
            float(1.0 - b1),
            float(1.0 - b2),
            float(in.lr * std::sqrt(1.0 - std::pow(b2, t)) / (1.0 - std::pow(b1, t))),
            float(in["eps"]),
            float(in.lr / in.baseLr * in.weightDecay)};
  }
  NS_HOST_DEVICE static Scalars forSlot(Scalars s, float lrMult) {
    s.alphaT *= lrMult;
    s.etaWd *= lrMult;
    return s;
  }

  template <typename T>
  NS_HOST_DEVICE static void update(const Scalars& s, T g, T& w, T& m, T& v) {
    m = s.b1 * m + s.oneMinusB1 * g;
    v = s.b2 * v + s.oneMinusB2 * g * g;
    const T next = w - s.alphaT * m / (Math<T>::sqrt(v) + s.eps);
    w = next - s.etaWd * w;
  }
};

}  // namespace netsmith::solvers::adamw
