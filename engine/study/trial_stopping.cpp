#include "engine/study/trial_stopping.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"

namespace netsmith::study {

namespace {
std::string percent(double error) { return format("{}%", std::round(error * 10000) / 100); }
}  // namespace

std::string stopRuleName(StopRule rule) {
  switch (rule) {
    case StopRule::Off: return "off";
    case StopRule::Asha: return "asha";
    case StopRule::Median: return "median";
  }
  return "off";
}

StopRule parseStopRule(const std::string& text, const std::string& what) {
  if (text == "off" || text == "none") return StopRule::Off;
  if (text == "asha") return StopRule::Asha;
  if (text == "median") return StopRule::Median;
  NS_THROW("{}: expected off, asha or median, got '{}'", what, text);
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (at - static_cast<double>(below)) * (values[above] - values[below]);
}

std::vector<int64_t> TrialStopper::rungs() const {
  std::vector<int64_t> out;
  if (m_settings.rule != StopRule::Asha) return out;
  for (int64_t e = std::max<int64_t>(1, m_settings.graceEpochs); e < m_settings.maxEpoch; e *= std::max<int64_t>(2, m_settings.reduction))
    out.push_back(e);
  return out;
}

std::optional<std::string> TrialStopper::report(int64_t trial, int64_t epoch, double error) {
  if (m_settings.rule == StopRule::Asha) {
    const auto rs = rungs();
    if (std::find(rs.begin(), rs.end(), epoch) == rs.end()) return std::nullopt;
    auto& recorded = m_rungErrors[epoch];
    recorded.push_back(error);
    const double cutoff = quantile(recorded, 1.0 / static_cast<double>(m_settings.reduction));
    if (error <= cutoff) return std::nullopt;
    return format("validation error {} at epoch {} is outside the best 1/{} of the {} trials that reached it (cut-off {})",
                  percent(error), epoch, m_settings.reduction, recorded.size(), percent(cutoff));
  }
  if (m_settings.rule == StopRule::Median) {
    auto& best = m_bestSoFar.try_emplace(trial, error).first->second;
    best = std::min(best, error);
    auto& atEpoch = m_bestByEpoch[epoch];
    std::vector<double> others;
    for (const auto& [t, e] : atEpoch)
      if (t != trial) others.push_back(e);
    atEpoch[trial] = best;
    if (epoch < m_settings.graceEpochs || others.size() < kMedianPeers) return std::nullopt;
    const double median = quantile(others, 0.5);
    if (best <= median) return std::nullopt;
    return format("best validation error {} by epoch {} is worse than the median {} of the {} other trials there",
                  percent(best), epoch, percent(median), others.size());
  }
  return std::nullopt;
}

}  // namespace netsmith::study
