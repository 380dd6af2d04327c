// Nesterov (nnabla; Sutskever et al. 2013 in the form of Bengio et al. 2012):
//   v' ← μ·v − lr·g;   w ← w + (−μ·v + (1 + μ)·v');   v ← v'
#pragma once

#include "engine/solvers/solver.h"

namespace netsmith::solvers::nesterov {

struct Solver {
  static constexpr const char* kName = "Nesterov";
  static constexpr const char* kLrKey = "lr";
  static constexpr SolverHyperParameter kHyper[] = {
      {"lr", 0.01, SolverHyperRange::Positive, "Learning rate."},
      {"momentum", 0.9, SolverHyperRange::UnitInterval, "Momentum factor, 0 to below 1."},
  };
  static constexpr std::array<const char*, 1> kBuffers = {"m"};
  static constexpr SolverWeightDecay kWeightDecay = SolverWeightDecay::L2;
  static constexpr const char* kWeightDecayKey = nullptr;

  struct Scalars {
    float lr, mu, onePlusMu;
  };
  static Scalars scalars(const StepInput& in) {
    const float mu = float(in["momentum"]);
    return {float(in.lr), mu, 1.0f + mu};  // 1 + μ in float, as it always was
  }
  NS_HOST_DEVICE static Scalars forSlot(Scalars s, float lrMult) { return {s.lr * lrMult, s.mu, s.onePlusMu}; }

  template <typename T>
  NS_HOST_DEVICE static void update(const Scalars& s, T g, T& w, T& v) {
    const T prev = v;
    v = s.mu * prev - s.lr * g;
    w += -s.mu * prev + s.onePlusMu * v;
  }
};

}  // namespace netsmith::solvers::nesterov
