// LearningRateSchedule: the learning rate at a 0-based global iteration, a pure function of the
// iteration so that a resumed run needs no schedule state.
//
//   lr(i) = base · multiplier(i) · warmup(i) · schedule(i)
//
//   multiplier(i) = lr_multiplier ^ floor(i / lr_update_interval)        (Neural Network Console)
//   W = round(warmup_epochs · iterationsPerEpoch) warm-up iterations:
//   warmup(i)     = (i + 1) / W for i < W (a linear ramp from base/W up to base at i = W − 1),
//                   1 afterwards
//   p = max(0, i − W), the iteration counted after warm-up; P = maxEpoch·iterationsPerEpoch − W
//   schedule(i)   = none:        1
//                   cosine:      0.5·(1 + cos(π · min(p, P) / P))   (1 when P <= 0)
//                   step:        gamma ^ floor(p / (step_epochs · iterationsPerEpoch))
//                                (optimizer.step_epochs, default 2; optimizer.gamma, default 0.5)
//                   exponential: gamma ^ floor(p / iterationsPerEpoch)   (optimizer.gamma, default 0.9)
//
// So step and exponential decays count epochs from the end of the warm-up, and the rate reaches
// `base` exactly when the warm-up ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/project/project.h"

namespace netsmith {

class LearningRateSchedule {
 public:
  // Validates the schedule fields of cfg (see validate()); iterationsPerEpoch >= 1, maxEpoch >= 1.
  LearningRateSchedule(const OptimizerConfig& cfg, double baseLr, int64_t iterationsPerEpoch, int64_t maxEpoch);

  // Checks lr_multiplier, lr_update_interval, warmup_epochs, lr_schedule and the schedule's
  // parameters; errors name the JSON path ("optimizer.step_epochs: expected an integer >= 1").
  static void validate(const OptimizerConfig& cfg);
  // none cosine step exponential, and a schedule's own parameters with their defaults
  // ({"step_epochs": 2, "gamma": 0.5}; empty for an unknown name), for editors such as the GUI's.
  static std::vector<std::string> names();
  static Json defaultParameters(const std::string& schedule);

  // The learning-rate range test's ramp (Note [Learning-rate range test], engine/study/
  // lr_range_test.h): low · (high / low)^(i / (iterations − 1)) at iteration i, held at high after.
  static LearningRateSchedule rangeTest(double low, double high, int64_t iterations);

  double at(int64_t iteration) const;

  double baseLearningRate() const { return m_base; }
  int64_t warmupIterations() const { return m_warmup; }
  int64_t totalIterations() const { return m_total; }

 private:
  enum class Kind { None, Cosine, Step, Exponential, RangeTest };
  LearningRateSchedule() = default;

  double m_base = 0;
  double m_multiplier = 1;
  int64_t m_interval = 1;
  int64_t m_iterationsPerEpoch = 1;
  int64_t m_total = 0;
  int64_t m_warmup = 0;
  double m_high = 0;  // RangeTest: the ramp from m_base to m_high over m_total iterations
  Kind m_kind = Kind::None;
  double m_gamma = 1.0;
  int64_t m_stepEpochs = 1;
};

}  // namespace netsmith
