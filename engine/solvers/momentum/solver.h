// Momentum (nnabla, which keeps the velocity with this sign):
//   v ← μ·v + lr·g;   w ← w − v
// (PyTorch's "v ← μ·v − lr·g; w ← w + v" is the same with v negated, bit for bit).
#pragma once

#include "engine/solvers/solver.h"

namespace netsmith::solvers::momentum {

struct Solver {
  static constexpr const char* kName = "Momentum";
  static constexpr const char* kLrKey = "lr";
  static constexpr SolverHyperParameter kHyper[] = {
      {"lr", 0.01, SolverHyperRange::Positive, "Learning rate."},
      {"momentum", 0.9, SolverHyperRange::UnitInterval, "Momentum factor, 0 to below 1."},
  };
  static constexpr std::array<const char*, 1> kBuffers = {"m"};
  static constexpr SolverWeightDecay kWeightDecay = SolverWeightDecay::L2;
  static constexpr const char* kWeightDecayKey = nullptr;

  struct Scalars {
    float lr, mu;
  };
  static Scalars scalars(const StepInput& in) { return {float(in.lr), float(in["momentum"])}; }
  NS_HOST_DEVICE static Scalars forSlot(Scalars s, float lrMult) { return {s.lr * lrMult, s.mu}; }

  template <typename T>
  NS_HOST_DEVICE static void update(const Scalars& s, T g, T& w, T& v) {
    v = s.mu * v + s.lr * g;
    w -= v;
  }
};

}  // namespace netsmith::solvers::momentum
