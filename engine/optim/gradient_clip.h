// Gradient clipping by global norm (optimizer.clip_gradient_norm) and the record of the gradient
// norms a run has seen, which the divergence report quotes (Note [Divergence],
// engine/train/divergence_guard.h).
//
// Note [Gradient clipping]
// After the all-reduce every worker holds the same averaged gradient g (over every parameter),
// and before the solver's step it computes ‖g‖ = sqrt(Σ g²) and, when ‖g‖ > c
// (optimizer.clip_gradient_norm), multiplies every element by the float clipScale(‖g‖, c) =
// c / ‖g‖. The norm is the all-reduced gradient's, so it is the clip of the logical batch, the same
// on every worker and whatever the device count:
//   - CPU workers add the squares in double (GradientSquaredNorm): each tensor is cut into pieces
//     of kNormPieceFloats, each piece is summed in element order (four interleaved partial sums
//     combined in one fixed order), on the worker's OpenMP threads when the gradient is large,
//     and the pieces' sums are added in piece order, so the result depends only on the values,
//     not on the thread count; the gradients are the same bits on every worker after the
//     all-reduce, so every worker gets the same scale, and in reproducible mode (same gradients
//     bit for bit on 1, 2 or 4 devices) the same parameters.
//   - A GPU (CudaSolver) adds them on the device in a fixed order too (one block per chunk of the
//     fused step's table, each a fixed lane split and tree, Note [Deterministic GPU reductions];
//     then the chunks' partials in chunk order), and the scale is computed and applied on the device
//     from that device-side norm: no host wait is added to a step. In half precision the gradients
//     are unscaled (and checked for overflow) first, so the clip sees the true gradient.
// A clip that does not trigger (‖g‖ <= c) multiplies nothing: the run is bit for bit the one
// without a clip. The norm is computed on every step even with clipping off: it costs one pass over
// the gradients (the MLP sample's 670k: 0.27 ms on one thread of the 2-core build machine, half of
// that on two; a step passes over them several times), and it gives the
// largest gradient norm the divergence report names and the check that a gradient turned
// non-finite. A non-finite norm skips the solver's step (the parameters stay those the failing
// step started from, which the divergence diagnosis then examines), and the run fails on it: CPU
// workers know the norm at once and the trainer fails at that iteration; a GPU keeps its record
// (GradientNorms, below) in device memory and skips the update there, and the host reads the record
// only when a run diverged (the largest norm for the report) and once at each epoch's end (a
// skipped gradient whose loss stayed finite fails the run then, naming its iteration): no step
// waits for it.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "engine/core/host_device.h"
#include "engine/core/tensor.h"

namespace netsmith {

// The factor a gradient of global norm `norm` is multiplied by under a clip at `maxNorm`
// (0: off): exactly 1 unless the norm is finite and larger than the clip.
NS_HOST_DEVICE inline float clipScale(double norm, double maxNorm) {
  // norm - norm is 0 exactly when norm is finite.
  if (!(maxNorm > 0) || !(norm > maxNorm) || !(norm - norm == 0.0)) return 1.0f;
  return static_cast<float>(maxNorm / norm);
}

// Σ g² over the tensors (host memory), in double, in the fixed order of Note [Gradient clipping].
// Keeps its work lists between calls, so a step allocates nothing once it has run (Note [No
// allocation per step], engine/model/network.cpp); one instance per worker.
class GradientSquaredNorm {
 public:
  static constexpr int64_t kNormPieceFloats = 16384;
  double operator()(std::span<Tensor* const> gradients);

 private:
  struct Piece {
    const float* g;
    int64_t n;
  };
  std::vector<Piece> m_pieces;
  std::vector<double> m_sums;
};

// g ← g · scale, element-wise, for every tensor (host memory).
void scaleGradients(std::span<Tensor* const> gradients, float scale);

// The global gradient norms a replica has seen, by optimizer step of this session (1-based: the
// n-th step() of the replica's solver, a half-precision step skipped for overflow included). Plain
// data with a host-device observe(): a GPU keeps one in its memory (CudaSolver).
struct GradientNorms {
  double last = std::numeric_limits<double>::quiet_NaN();     // the last step's; NaN before any
  double largest = std::numeric_limits<double>::quiet_NaN();  // the largest finite one; NaN: none yet
  int64_t largestStep = 0;                                     // its step
  // The largest finite one before the last step, and its step: a report of a divergence found at
  // the last step quotes the norms before it.
  double largestBefore = std::numeric_limits<double>::quiet_NaN();
  int64_t largestBeforeStep = 0;
  int64_t steps = 0;                                           // the last step observed
  int64_t clippedSteps = 0;                                    // steps whose gradient was scaled down
  // The first step whose norm was not finite (0: none); its update was skipped.
  int64_t firstNonFiniteStep = 0;

  NS_HOST_DEVICE void observe(double norm, bool clipped, int64_t step) {
    largestBefore = largest;
    largestBeforeStep = largestStep;
    steps = step;
    last = norm;
    if (clipped) ++clippedSteps;
    if (!(norm - norm == 0.0)) {  // not finite
      if (firstNonFiniteStep == 0) firstNonFiniteStep = steps;
      return;
    }
    if (!(largest >= norm)) {  // also when largest is NaN (none yet)
      largest = norm;
      largestStep = steps;
    }
  }
};

}  // namespace netsmith
