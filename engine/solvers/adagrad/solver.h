// Adagrad (nnabla):  G ← G + g²;   w ← w − lr·g / (√G + ε)
#pragma once

#include "engine/solvers/solver.h"

namespace netsmith::solvers::adagrad {

struct Solver {
  static constexpr const char* kName = "Adagrad";
  static constexpr const char* kLrKey = "lr";
  static constexpr SolverHyperParameter kHyper[] = {
      {"lr", 0.01, SolverHyperRange::Positive, "Learning rate."},
      {"eps", 1e-8, SolverHyperRange::Positive, "Added to the denominator, for numerical stability."},
  };
  static constexpr std::array<const char*, 1> kBuffers = {"v"};
  static constexpr SolverWeightDecay kWeightDecay = SolverWeightDecay::L2;
  static constexpr const char* kWeightDecayKey = nullptr;

  struct Scalars {
    float lr, eps;
  };
  static Scalars scalars(const StepInput& in) { return {float(in.lr), float(in["eps"])}; }
  NS_HOST_DEVICE static Scalars forSlot(Scalars s, float lrMult) { return {s.lr * lrMult, s.eps}; }

  template <typename T>
  NS_HOST_DEVICE static void update(const Scalars& s, T g, T& w, T& acc) {
    acc += g * g;
    w -= s.lr * g / (Math<T>::sqrt(acc) + s.eps);
  }
};

}  // namespace netsmith::solvers::adagrad
