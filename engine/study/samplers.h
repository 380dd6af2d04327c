// Where a study's trials get their values (Note [Studies], study_runner.h): a grid of every
// combination, random draws, or a tree-structured Parzen estimator (Note [TPE sampler]) that
// draws where the better trials so far lie.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/study/search_space.h"

namespace netsmith::study {

enum class SearchKind { Grid, Random, Bayesian };
std::string searchKindName(SearchKind kind);  // "grid", "random", "bayes"
// Throws Error naming `what` for anything but grid, random or bayes.
SearchKind parseSearchKind(const std::string& text, const std::string& what);

// A trial with an outcome: its values and the objective the study minimizes (a validation
// error); nullopt for a trial that failed or gave no figure, which counts as the worst.
struct Observation {
  TrialValues values;
  std::optional<double> objective;
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  // The values of trial `trial` (0-based) given the trials with an outcome so far. The same
  // arguments give the same values on every machine (study_random.h).
  virtual TrialValues suggest(int64_t trial, const std::vector<Observation>& observed) const = 0;
  // How many trials the search holds (a grid's combinations); nullopt: as many as asked.
  virtual std::optional<int64_t> size() const { return std::nullopt; }
};

// Throws Error when the parameters do not suit the search (a range in a grid, no parameter).
std::unique_ptr<Sampler> makeSampler(SearchKind kind, const std::vector<SearchParameter>& parameters, uint64_t seed);

}  // namespace netsmith::study
