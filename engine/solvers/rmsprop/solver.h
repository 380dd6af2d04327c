// RMSprop (nnabla, Tieleman & Hinton):  v ← ρ·v + (1 − ρ)·g²;   w ← w − lr / (√v + ε) · g
#pragma once

#include "engine/solvers/solver.h"

namespace netsmith::solvers::rmsprop {

struct Solver {
  static constexpr const char* kName = "RMSprop";
  static constexpr const char* kLrKey = "lr";
  static constexpr SolverHyperParameter kHyper[] = {
      {"lr", 0.001, SolverHyperRange::Positive, "Learning rate."},
      {"decay", 0.9, SolverHyperRange::UnitInterval,
       "Decay of the running mean of the squared gradient, 0 to below 1."},
      {"eps", 1e-8, SolverHyperRange::Positive, "Added to the denominator, for numerical stability."},
  };
  static constexpr std::array<const char*, 1> kBuffers = {"v"};
  static constexpr SolverWeightDecay kWeightDecay = SolverWeightDecay::L2;
  static constexpr const char* kWeightDecayKey = nullptr;

  struct Scalars {
    float lr, rho, oneMinusRho, eps;
  };
  static Scalars scalars(const StepInput& in) {
    return {float(in.lr), float(in["decay"]), float(1.0 - in["decay"]), float(in["eps"])};
  }
  NS_HOST_DEVICE static Scalars forSlot(Scalars s, float lrMult) {
    s.lr *= lrMult;
    return s;
  }

  template <typename T>
  NS_HOST_DEVICE static void update(const Scalars& s, T g, T& w, T& v) {
    v = v * s.rho + g * g * s.oneMinusRho;
    w -= s.lr / (Math<T>::sqrt(v) + s.eps) * g;
  }
};

}  // namespace netsmith::solvers::rmsprop
