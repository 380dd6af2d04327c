// Note [Stopping weak trials]
// A study stops a trial whose validation curve is already worse than its peers', freeing its
// devices for the next trial. Two rules, both judged on the validation error each epoch reports:
// - asha (the default of random and Bayesian studies): asynchronous successive halving as Ray
//   Tune runs it. Rungs sit at epochs grace·η^k below the last epoch (grace 1, η 3: epochs 1, 3,
//   9, ...). A trial reaching a rung records its error there and goes on only if it lies within
//   the best 1/η of the errors recorded at that rung so far (itself included; a quantile with
//   linear interpolation). Early trials pass because there is nothing to beat yet; later ones
//   meet a stricter rung. Nobody waits for anybody: that is the "asynchronous".
// - median: the median stopping rule (Google Vizier): from epoch grace on, a trial whose best
//   error so far is worse than the median of the other trials' best errors at the same epoch
//   stops, once kMedianPeers others have reached it.
// The rules see the epochs in the order the study logs them (trials.jsonl), and a resumed study
// replays the log first, so the rungs are what they were.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace netsmith::study {

enum class StopRule { Off, Asha, Median };
std::string stopRuleName(StopRule rule);  // "off", "asha", "median"
StopRule parseStopRule(const std::string& text, const std::string& what);

struct StopSettings {
  StopRule rule = StopRule::Off;
  int64_t graceEpochs = 1;  // no trial stops before this epoch
  int64_t reduction = 3;    // η: a rung keeps the best 1/η
  int64_t maxEpoch = 1;     // the trials' last epoch (never a rung: the trial ends there anyway)
};

class TrialStopper {
 public:
  static constexpr size_t kMedianPeers = 3;

  explicit TrialStopper(StopSettings settings) : m_settings(settings) {}
  // Records the trial's validation error at the end of `epoch` (1-based); returns why it should
  // stop now, or nullopt to go on.
  std::optional<std::string> report(int64_t trial, int64_t epoch, double error);
  // The epochs at which ASHA judges (empty for other rules).
  std::vector<int64_t> rungs() const;

 private:
  StopSettings m_settings;
  std::map<int64_t, std::vector<double>> m_rungErrors;        // ASHA: epoch -> errors recorded there
  std::map<int64_t, std::map<int64_t, double>> m_bestByEpoch;  // median: epoch -> trial -> best so far
  std::map<int64_t, double> m_bestSoFar;                       // median: trial -> best error so far
};

// numpy's percentile with linear interpolation, q in [0, 1], of a non-empty list.
double quantile(std::vector<double> values, double q);

}  // namespace netsmith::study
