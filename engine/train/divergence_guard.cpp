// DivergenceGuard (Note [Divergence]).
#include "engine/train/divergence_guard.h"

#include <cmath>

#include "engine/core/error.h"

namespace netsmith {

std::optional<std::string> DivergenceGuard::check(double meanLoss) {
  if (!std::isfinite(meanLoss)) return format("the training loss became {}", meanLoss);
  if (m_count > 0) {
    const double level = this->level();
    if (meanLoss > kFloor && meanLoss > kFactor * level)
      return format("the training loss exploded to {}, more than {} times its level at the start ({})", meanLoss,
                    kFactor, level);
  }
  if (m_count < kReferenceIterations) {
    m_sum += meanLoss;
    ++m_count;
  }
  return std::nullopt;
}

}  // namespace netsmith
