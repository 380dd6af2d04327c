// Sgd (nnabla):  w ← w − lr·g
#pragma once

#include "engine/solvers/solver.h"

namespace netsmith::solvers::sgd {

struct Solver {
  static constexpr const char* kName = "Sgd";
  static constexpr const char* kLrKey = "lr";
  static constexpr SolverHyperParameter kHyper[] = {
      {"lr", 0.001, SolverHyperRange::Positive, "Learning rate."},
  };
  static constexpr std::array<const char*, 0> kBuffers = {};
  static constexpr SolverWeightDecay kWeightDecay = SolverWeightDecay::L2;
  static constexpr const char* kWeightDecayKey = nullptr;

  struct Scalars {
    float lr;
  };
  static Scalars scalars(const StepInput& in) { return {float(in.lr)}; }
  NS_HOST_DEVICE static Scalars forSlot(Scalars s, float lrMult) { return {s.lr * lrMult}; }

  template <typename T>
  NS_HOST_DEVICE static void update(const Scalars& s, T g, T& w) {
    w -= s.lr * g;
  }
};

}  // namespace netsmith::solvers::sgd
