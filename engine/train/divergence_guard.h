// Note [Divergence]
// A run whose loss explodes must not end "completed" with parameters that predict nothing (Adam
// at learning rate 1e6 on the MLP sample: train loss 3.2e30, status completed, exit 0). The
// trainer gives the guard every iteration's mean training loss; the guard keeps the mean of the
// first kReferenceIterations of this session as the run's level, and calls the loss diverged
// when it is more than kFactor times that level and above kFloor: three orders of magnitude
// above where the run stood, and larger than any classification loss that still learns (cross
// entropy over a million classes starts at 14). The floor keeps a run that had already
// converged (a fine-tune at 1e-6) from failing on a harmless spike. A non-finite loss diverges at
// once, and so does a non-finite global gradient norm on CPU workers, which know it at once
// (Note [Gradient clipping], engine/optim/gradient_clip.h: the update of such a gradient is
// skipped, on GPUs too, so the parameters stay those the failing step started from).
// Then the run is explained, at no cost while it trains: the leader's worker runs the failing
// iteration's batch again (Note [Divergence diagnosis], divergence_diagnosis.h) to find the first
// layer where it happened — its parameters, forward in topological order, backward in reverse
// order, or where the activations blow up — and the report (divergence_report.h) names the
// iteration, that block and pass, the largest global gradient norm before the failing step (every
// step computes it: Note [Gradient clipping]; a GPU keeps it in its memory, read only now), and
// advice computed from the run: a tenth of the failing learning rate and the project value that
// gives it, a clip at the largest norm seen, a warm-up when there is none, and in half precision
// what loss scaling cannot do. The error and finished events carry it as their `divergence`
// object (engine/protocol/events.h; docs/events.md), and the console marks that block on the
// network canvas (GraphScene::markRunFailure). The run fails as before: no checkpoint of that
// state, the last good one kept for a resume at a lower learning rate. The level is this
// session's, so a resume measures its own, from the checkpoint it starts from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace netsmith {

class DivergenceGuard {
 public:
  static constexpr int kReferenceIterations = 10;
  static constexpr double kFactor = 1000;
  static constexpr double kFloor = 1000;

  // The reason when `meanLoss` (per sample) says the run diverged ("the training loss became
  // inf"), else nullopt; the report adds the position (divergenceMessage). Called every
  // iteration: nothing is formatted unless the run diverged.
  std::optional<std::string> check(double meanLoss);

  double level() const { return m_count ? m_sum / m_count : 0; }

 private:
  double m_sum = 0;
  int m_count = 0;
};

}  // namespace netsmith
