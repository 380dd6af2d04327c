// Note [TPE sampler]
// The study's Bayesian search is a tree-structured Parzen estimator (Bergstra et al., 2011, as
// Hyperopt and Optuna use it), our own small code. After kStartupTrials trials drawn at random
// (the random search's own draws, so a Bayesian and a random study of one seed start alike), the
// trials with an outcome are split: the best quarter (at least one) is "good", the rest "bad"; a
// failed trial is bad. Each setting gets two densities over its unit interval (search_space.h):
// l from the good trials, g from the bad ones — for a range, a Gaussian at each trial's value,
// as wide as the larger gap to its neighbours (clipped), truncated to [0, 1], plus one broad prior
// component; for a choice, the counts plus one for each value. kCandidates draws from l are
// scored by the sum over settings of log l - log g, and the best becomes the trial's values. The
// settings are modelled independently (the "tree" has no conditional branches here). Draws are
// seeded by the study's seed and the trial (study_random.h), so the same outcomes give the same
// suggestion.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/study/samplers.h"

namespace netsmith::study {

class TpeSampler final : public Sampler {
 public:
  static constexpr size_t kStartupTrials = 4;
  static constexpr int kCandidates = 24;
  static constexpr double kGoodFraction = 0.25;

  TpeSampler(std::vector<SearchParameter> parameters, uint64_t seed) : m_parameters(std::move(parameters)), m_seed(seed) {}
  TrialValues suggest(int64_t trial, const std::vector<Observation>& observed) const override;

 private:
  std::vector<SearchParameter> m_parameters;
  uint64_t m_seed;
};

// The random search's draw for a trial (samplers.cpp): TPE's start-up trials.
TrialValues drawUniform(const std::vector<SearchParameter>& parameters, uint64_t seed, int64_t trial);

}  // namespace netsmith::study
