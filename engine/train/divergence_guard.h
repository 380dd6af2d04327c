// Note [Divergence]
// A run whose loss explodes must not end "completed" with parameters that predict nothing (Adam
// at learning rate 1e6 on the MLP sample: train loss 3.2e30, status completed, exit 0). The
// trainer gives the guard every iteration's mean training loss; the guard keeps the mean of the
// first kReferenceIterations of this session as the run's level, and calls the loss diverged
// when it is more than kFactor times that level and above kFloor: three orders of magnitude
// above where the run stood, and larger than any classification loss that still learns (cross
// entropy over a million classes starts at 14). The floor keeps a run that had already
// converged (a fine-tune at 1e-6) from failing on a harmless spike. The run then fails as on a
// non-finite loss: an error naming the iteration and the loss, no checkpoint of that state, the
// last good one kept for a resume at a lower learning rate. The level is this session's, so a
// resume measures its own, from the checkpoint it starts from.
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

  // The reason when `meanLoss` (per sample) says the run diverged, else nullopt; it names the
  // iteration ("epoch 2, iteration 5 (global iteration 101)", 1-based). Called every iteration:
  // nothing is formatted unless the run diverged.
  std::optional<std::string> observe(double meanLoss, int64_t epoch, int64_t iteration, int64_t globalIteration);

  double level() const { return m_count ? m_sum / m_count : 0; }

 private:
  double m_sum = 0;
  int m_count = 0;
};

}  // namespace netsmith
