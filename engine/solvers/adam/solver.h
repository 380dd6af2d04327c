// Adam (nnabla, Kingma & Ba with the bias correction folded into the step size):
//   m ← β1·m + (1 − β1)·g;   v ← β2·v + (1 − β2)·g²
//   α_t = α·√(1 − β2^t) / (1 − β1^t);   w ← w − α_t·m / (√v + ε)
// (α as scheduled.) optimizer.weight_decay is L2 on g, as for the others; AdamW decouples it.
#pragma once

#include "engine/solvers/solver.h"

namespace netsmith::solvers::adam {

struct Solver {
  static constexpr const char* kName = "Adam";
  static constexpr const char* kLrKey = "alpha";
  static constexpr SolverHyperParameter kHyper[] = {
      {"alpha", 0.001, SolverHyperRange::Positive, "Learning rate."},
      {"beta1", 0.9, SolverHyperRange::UnitInterval, "Decay of the running mean of the gradient, 0 to below 1."},
      {"beta2", 0.999, SolverHyperRange::UnitInterval,
       "Decay of the running mean of the squared gradient, 0 to below 1."},
      {"eps", 1e-8, SolverHyperRange::Positive, "Added to the denominator, for numerical stability."},
  };
  static constexpr std::array<const char*, 2> kBuffers = {"m", "v"};
  static constexpr SolverWeightDecay kWeightDecay = SolverWeightDecay::L2;
  static constexpr const char* kWeightDecayKey = nullptr;

  struct Scalars {
    float b1, b2, oneMinusB1, oneMinusB2, alphaT, eps;
  };
  static Scalars scalars(const StepInput& in) {
    const double b1 = in["beta1"], b2 = in["beta2"], t = double(in.t);
    return {float(b1),          float(b2),
            float(1.0 - b1),    float(1.0 - b2),
            float(in.lr * std::sqrt(1.0 - std::pow(b2, t)) / (1.0 - std::pow(b1, t))),
            float(in["eps"])};
  }
  NS_HOST_DEVICE static Scalars forSlot(Scalars s, float lrMult) {
    s.alphaT *= lrMult;
    return s;
  }

  template <typename T>
  NS_HOST_DEVICE static void update(const Scalars& s, T g, T& w, T& m, T& v) {
    m = s.b1 * m + s.oneMinusB1 * g;
    v = s.b2 * v + s.oneMinusB2 * g * g;
    w = w - s.alphaT * m / (Math<T>::sqrt(v) + s.eps);
  }
};

}  // namespace netsmith::solvers::adam
