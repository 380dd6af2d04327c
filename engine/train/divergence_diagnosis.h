// The divergence diagnosis: where, in a network that diverged, the first non-finite value (or the
// explosion) appears. Note [Divergence] (divergence_guard.h) says when it runs.
//
// Note [Divergence diagnosis]
// A run that diverged has already stopped, so the diagnosis costs nothing while it trains: once the
// guard (or a non-finite gradient norm, Note [Gradient clipping]) has failed the run, the leader's
// replica runs the failing iteration's batch again, on its own device, in slices of its own batch,
// and looks at every tensor in the order the values were made:
//   1. the parameters, in graph order: a layer whose weights are already not finite (an update
//      that let a non-finite gradient through, on a device that does not skip it);
//   2. forward, in topological order: the first layer whose output holds an inf or a NaN (a layer
//      whose output its successor writes, Note [Fused ReLU], is judged by that output), or whose
//      output's largest magnitude is more than kDivergenceGrowth times its inputs' (at least 1):
//      the layer where the activations blow up, which is where a huge but finite loss (the
//      guard's explosion) comes from, and often what overflows further on;
//   3. backward, in reverse order: the first layer whose parameters' gradients, or the gradient it
//      passes back to its inputs, hold one.
// The slices are tried in order until one shows something. The CPU optimizer and the GPU's fused
// step skip the update of a non-finite gradient, so after a non-finite loss or gradient the
// parameters examined are those the failing step started from, and the failing batch gives the
// failing values again (forward and backward are deterministic in a slice's values). An
// explosion's gradient is finite and was applied: its diagnosis sees the parameters one update
// later, where the same layer has only grown further. A BatchNormalization's running statistics
// follow the diagnosis' batches, which is harmless: no checkpoint is written after a divergence.
#pragma once

#include <optional>
#include <string>

#include "engine/model/network.h"

namespace netsmith {

struct DivergenceFinding {
  std::string block;    // the layer's id
  int node = -1;        // its index in the graph (topological order)
  std::string pass;     // parameters | forward | backward
  std::string finding;  // what was seen there, for people ("its output became inf")
};

// The largest output magnitude over the inputs' (at least 1) beyond which step 4 names a layer.
inline constexpr double kDivergenceGrowth = 1000;

// Step 1.
std::optional<DivergenceFinding> findNonFiniteParameters(Network& network);
// Step 2, after a training forward: the earlier of the two findings below.
std::optional<DivergenceFinding> findForwardProblem(Network& network);
// The first layer whose output is not finite.
std::optional<DivergenceFinding> findNonFiniteForward(Network& network);
// The first layer whose output grew more than kDivergenceGrowth times its inputs' (finite ones:
// the walk ends at the first non-finite output).
std::optional<DivergenceFinding> findExplodingForward(Network& network);
// Step 3, after backward.
std::optional<DivergenceFinding> findNonFiniteBackward(Network& network);

}  // namespace netsmith
