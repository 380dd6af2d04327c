#include "engine/study/setting_importance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace netsmith::study {

namespace {

// The bin of each trial by one parameter (Note [Setting importance]); -1 for a value the
// parameter does not hold (a choice not among its choices).
std::vector<int> binsOf(const SearchParameter& p, const std::vector<const Observation*>& trials, size_t index) {
  std::vector<int> bins(trials.size(), -1);
  const bool numbers = std::all_of(p.choices.begin(), p.choices.end(), [](const Json& c) { return c.is_number(); });
  if (!p.numeric() && !numbers) {
    for (size_t t = 0; t < trials.size(); ++t)
      if (auto c = p.choiceIndex(trials[t]->values[index])) bins[t] = static_cast<int>(*c);
    return bins;
  }
  // A range, or a list of numbers (a grid's --set): binned in the order of the values.
  std::vector<std::pair<double, size_t>> order;  // (value's place, trial)
  for (size_t t = 0; t < trials.size(); ++t) {
    const Json& v = trials[t]->values[index];
    if (v.is_number()) order.emplace_back(p.numeric() ? p.toUnit(v.get<double>()) : v.get<double>(), t);
  }
  std::sort(order.begin(), order.end());
  const size_t n = order.size();
  const size_t k = std::clamp<size_t>(static_cast<size_t>(std::lround(std::sqrt(static_cast<double>(n)))), 2, 5);
  for (size_t r = 0; r < n; ++r) {
    // Equal values share the bin of their first occurrence.
    const bool sameAsBefore = r > 0 && order[r].first == order[r - 1].first;
    bins[order[r].second] = sameAsBefore ? bins[order[r - 1].second] : static_cast<int>(r * k / n);
  }
  return bins;
}

// ε² of `errors` grouped by `bins` (entries with bin -1 left out).
double epsilonSquared(const std::vector<double>& errors, const std::vector<int>& bins) {
  std::map<int, std::pair<double, size_t>> groups;  // bin -> (sum, count)
  double sum = 0;
  size_t n = 0;
  for (size_t t = 0; t < errors.size(); ++t) {
    if (bins[t] < 0) continue;
    groups[bins[t]].first += errors[t];
    ++groups[bins[t]].second;
    sum += errors[t];
    ++n;
  }
  const size_t k = groups.size();
  // One trial per group leaves no variance within groups to tell an effect from chance.
  if (n < 2 || k < 2 || n <= k) return 0;
  const double mean = sum / static_cast<double>(n);
  double total = 0;
  for (size_t t = 0; t < errors.size(); ++t)
    if (bins[t] >= 0) total += (errors[t] - mean) * (errors[t] - mean);
  if (!(total > 0)) return 0;
  double between = 0;
  for (const auto& [bin, g] : groups) {
    const double m = g.first / static_cast<double>(g.second);
    between += static_cast<double>(g.second) * (m - mean) * (m - mean);
  }
  const double withinMean = (total - between) / static_cast<double>(n - k);
  return std::clamp((between - static_cast<double>(k - 1) * withinMean) / total, 0.0, 1.0);
}

}  // namespace

std::vector<SettingImportance> settingImportance(const std::vector<SearchParameter>& parameters,
                                                 const std::vector<Observation>& trials) {
  std::vector<SettingImportance> out;
  for (const auto& p : parameters) out.push_back({p.name(), 0, 0});
  std::vector<const Observation*> scored;
  std::vector<double> errors;
  for (const Observation& o : trials)
    if (o.objective && std::isfinite(*o.objective) && o.values.size() == parameters.size()) {
      scored.push_back(&o);
      errors.push_back(*o.objective);
    }
  if (scored.size() < kMinImportanceTrials) return out;
  double total = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    out[i].explained = epsilonSquared(errors, binsOf(parameters[i], scored, i));
    total += out[i].explained;
  }
  if (total > 0)
    for (auto& s : out) s.share = s.explained / total;
  return out;
}

}  // namespace netsmith::study
