// What every solver folder declares (Note [Solver folders]).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/core/host_device.h"

namespace netsmith {

// Note [Solver folders]
// Each folder engine/solvers/<name>/ holds one solver of optimizer.solver in solver.h, as
// `struct netsmith::solvers::<name>::Solver`, and declares there, once:
//   kName          optimizer.solver ("Adam");
//   kLrKey         which hyper-parameter is the learning rate ("lr", "alpha", "eta");
//   kHyper         its hyper-parameters: key (optimizer.<key>), default (nnabla's), range, help;
//   kBuffers       its state buffers per parameter ("m", "v"; two at most), the checkpoint's names;
//   kWeightDecay   how optimizer.weight_decay acts: L2 (g ← g + wd·w before the update, applied
//                  by whoever runs the body) or Decoupled (the solver's own scalars carry it);
//   kWeightDecayKey  a hyper-parameter that is another spelling of optimizer.weight_decay
//                  (AdamW's nnabla name "wd"), or nullptr;
//   Scalars        the per-step scalars, computed by `scalars(StepInput)` on the host in double
//                  and rounded to float once; `forSlot(s, lrMult)` scales the learning-rate ones
//                  by the layer's lr_mult (Note [Frozen layers]) in float;
//   update         the per-element update, ONE NS_HOST_DEVICE template over the element type T:
//                  update(s, g, w&, state&...) with one state argument per buffer. The CPU
//                  optimizer instantiates it for 4-float vectors and for its scalar tail (Note
//                  [Solver kernels], engine/optim/optimizer.cpp), the CUDA fused step and the
//                  simulated GPUs' host loop for float (Note [Fused solver step]).
// A solver whose step is not element-wise (LAMB's trust ratio, Note [Trust ratio]) sets
// kTrustRatio and declares, instead of update, moments(s, g, m&, v&), direction(s, w, m, v),
// tensorScale(s, Σw², Σd², lrMult) and apply(scale, d, w&).
// The list of solvers is generated from the folder names (cmake/OpFolders.cmake) into
// engine/solvers/solver_list.h in the build tree, so adding a solver is adding a folder: the
// project loader, the settings table, the GUI's Optimizer panel, the NNabla importer, the CPU
// optimizer and the CUDA fused step all read the declarations (solver_table.h for the words, the
// list for the maths).
// The maths of the element types: the body calls Math<T>::sqrt, which the CPU optimizer also
// defines for its vectors.

enum class SolverHyperRange {
  Positive,      // > 0
  NonNegative,   // >= 0
  UnitInterval,  // [0, 1)
  Flag,          // true or false in the file, 1 or 0 here (LAMB's bias_correction)
};

struct SolverHyperParameter {
  const char* name;  // the key in the optimizer section: optimizer.<name>
  double defaultValue;
  SolverHyperRange range;
  const char* help;  // the Optimizer panel's tooltip, one sentence
};

enum class SolverWeightDecay {
  L2,         // g ← g + wd·w before the update (nnabla's Solver::weight_decay)
  Decoupled,  // the solver's own scalars apply it (AdamW, LAMB)
};

namespace solvers {

// A solver's hyper-parameters by key, defaults filled in; looked up without allocating.
using HyperValues = std::map<std::string, double, std::less<>>;

// What the per-step scalars are computed from, on the host, in double.
struct StepInput {
  const HyperValues& hyper;
  double lr;           // this step's learning rate (as scheduled)
  double baseLr;       // the base the schedule starts from (AdamW's η_t = lr / base)
  double weightDecay;  // optimizer.weight_decay
  int64_t t;           // the step, from 1

  double operator[](std::string_view key) const { return hyper.find(key)->second; }
};

// sqrt for an element type: float here; the CPU optimizer adds its 4-float vectors.
template <typename T>
struct Math;
template <>
struct Math<float> {
  NS_HOST_DEVICE static float sqrt(float x) { return sqrtf(x); }
};

// The number of state buffers of solver S.
template <class S>
constexpr int bufferCount() {
  return static_cast<int>(std::tuple_size_v<std::remove_cvref_t<decltype(S::kBuffers)>>);
}

// Whether S's step needs per-tensor sums (Note [Trust ratio]).
template <class S>
constexpr bool hasTrustRatio() {
  if constexpr (requires { S::kTrustRatio; }) return S::kTrustRatio;
  else return false;
}

// A list of solver types; solver_list.h names every folder's.
template <class... S>
struct List {
  static constexpr int size = sizeof...(S);
  // f(S{}) for every solver, in folder order.
  template <class F>
  static void forEach(F&& f) {
    (f(S{}), ...);
  }
  // f(S{}) for the solver named `name`; false when none is.
  template <class F>
  static bool with(std::string_view name, F&& f) {
    return ((name == S::kName ? (f(S{}), true) : false) || ...);
  }
};

}  // namespace solvers
}  // namespace netsmith
