// How much each setting of a study matters to its outcome: the console's importance bars.
//
// Note [Setting importance]
// The measure is the share of the variance of the trials' best validation errors that each
// setting's binned means explain — a one-way analysis of variance per setting (an "fANOVA-lite":
// fANOVA fits a random forest and splits the variance of its prediction; we split the trials'
// own errors by one setting at a time). The trials are grouped by the setting's value: a choice
// of words by its value, a numeric range (or a list of numbers, as a grid's) into k equal-count
// bins of its values, k = round(√n) within [2, 5] for n trials (equal values share a bin); groups
// of one trial each say nothing (no variance within them to compare with) and give 0.
// Explained variance is then
//     ε² = (SS_between − (k − 1)·MS_within) / SS_total,   clipped to [0, 1]
// (epsilon-squared: η² = SS_between / SS_total less what k groups would explain by chance, so a
// setting the error does not depend on reads about 0, not k/n). The bars show each setting's ε²
// divided by their sum, Optuna's convention, so they add up to 1; the raw ε² is kept for the
// tooltip.
// Why not |Spearman ρ|: a learning rate's error is usually U-shaped (too small learns slowly,
// too large diverges), and a rank correlation sees little of a U; it also has no meaning for an
// unordered choice (a solver). Binned means see both. The measure is marginal: it does not
// split out interactions, and with few trials it is rough (the console asks for kMinTrials).
// Failed trials are left out (they have no error); trials stopped early count with the best
// error they reached, as the samplers see them.
#pragma once

#include <string>
#include <vector>

#include "engine/study/samplers.h"

namespace netsmith::study {

struct SettingImportance {
  std::string name;          // the parameter's short name ("alpha", "conv1.outmaps")
  double explained = 0;      // ε², the share of the variance this setting alone explains
  double share = 0;          // explained / the sum over the settings (0 when that sum is 0)
};

// Trials with an error needed before importance means anything.
constexpr size_t kMinImportanceTrials = 4;

// One entry per parameter, in their order. Observations without an objective are skipped; with
// fewer than kMinImportanceTrials left, or errors that do not vary, every figure is 0.
std::vector<SettingImportance> settingImportance(const std::vector<SearchParameter>& parameters,
                                                 const std::vector<Observation>& trials);

}  // namespace netsmith::study
