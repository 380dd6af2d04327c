// Note [Learning-rate range test]
// `netsmith-cli lr-find` (and the console's button) runs Leslie Smith's learning-rate range test
// as fastai's lr_find does: a short training whose rate grows exponentially from `low` to `high`
// over N iterations (LearningRateSchedule::rangeTest), recording every iteration's training loss,
// until N iterations are done or the loss explodes — its smoothed value more than 4 times the
// smallest so far, or the run's divergence guard (Note [Divergence]). The losses are smoothed by
// an exponential moving average (β = 0.98, bias-corrected, as fastai); the suggested rate is
// where the smoothed loss falls fastest against log(rate) — the steepest descent, before the
// smallest loss — and the rate of the smallest loss is given beside it (a tenth of it is the
// older rule of thumb). The rates are the project's own (its optimizer's learning rate, before
// lr_policy scales it for several devices), so the suggestion goes straight into the Optimizer
// panel. It trains on the project's devices and data into a run folder of its own
// (<project>.runs/<stamp>-lr-find/), where lr_find.json keeps the curve and the suggestion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/train/events.h"
#include "engine/train/run_control.h"

namespace netsmith::study {

struct RangeTestPoint {
  int64_t iteration = 0;  // 1-based, over the whole test
  double lr = 0;          // the project's rate (before lr_policy's scale)
  double loss = 0;        // the iteration's mean training loss
  double smoothed = 0;
};

struct RangeTestResult {
  std::vector<RangeTestPoint> points;
  std::optional<double> suggestedLr;    // the steepest descent
  std::optional<double> minimumLossLr;  // the smallest smoothed loss
  std::string stoppedBecause;
  std::string runDir;
  Json toJson() const;
};

struct RangeTestOptions {
  std::string projectPath;
  double low = 1e-7;
  double high = 10;
  int64_t iterations = 100;
  std::vector<std::string> devices;  // empty: the project's
  std::string runDir;                // empty: <project>.runs/<stamp>-lr-find
  EventSink* events = nullptr;       // also gets the training's events (the console's live view)
  RunControl* control = nullptr;
};

// Runs the test; throws Error when the training fails for another reason than the loss exploding.
RangeTestResult runRangeTest(const RangeTestOptions& options);

// The smoothed losses (filled into `points`), and the suggestion's index: the steepest fall of the
// smoothed loss against log(rate) before the smallest one; nullopt with fewer than 3 points.
void smoothLosses(std::vector<RangeTestPoint>& points);
std::optional<size_t> steepestDescent(const std::vector<RangeTestPoint>& points);
std::optional<size_t> smallestLoss(const std::vector<RangeTestPoint>& points);

}  // namespace netsmith::study
