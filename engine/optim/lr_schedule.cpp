#include "engine/optim/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace netsmith {
namespace {

struct ScheduleParam {
  const char* name;
  double defaultValue;
  bool integer;  // step_epochs counts epochs; gamma is a factor in (0, 1]
};

struct ScheduleSpec {
  const char* name;
  std::vector<ScheduleParam> params;
};

const std::vector<ScheduleSpec>& scheduleSpecs() {
  static const std::vector<ScheduleSpec> specs = {
      {"none", {}},
      {"cosine", {}},
      {"step", {{"step_epochs", 2, true}, {"gamma", 0.5, false}}},
      {"exponential", {{"gamma", 0.9, false}}},
  };
  return specs;
}

const ScheduleSpec* findSchedule(const std::string& name) {
  for (const auto& s : scheduleSpecs())
    if (name == s.name) return &s;
  return nullptr;
}

// The value of a schedule parameter, default filled; checks the type and range.
double scheduleParam(const OptimizerConfig& cfg, const ScheduleParam& p) {
  const auto it = cfg.scheduleParams.find(p.name);
  if (it == cfg.scheduleParams.end()) return p.defaultValue;
  const std::string path = format("optimizer.{}", p.name);
  NS_CHECK(it->is_number(), "{}: expected a number, got {}", path, it->dump());
  const double v = it->get<double>();
  if (p.integer) {
    NS_CHECK(std::isfinite(v) && v >= 1 && v == std::floor(v) && v <= 1e9, "{}: expected an integer >= 1, got {}",
             path, v);
  } else {  // gamma
    NS_CHECK(std::isfinite(v) && v > 0 && v <= 1, "{}: expected a number in (0, 1], got {}", path, v);
  }
  return v;
}

}  // namespace

std::vector<std::string> LearningRateSchedule::names() {
  std::vector<std::string> out;
  for (const auto& s : scheduleSpecs()) out.emplace_back(s.name);
  return out;
}

Json LearningRateSchedule::defaultParameters(const std::string& schedule) {
  Json out = Json::object();
  if (const ScheduleSpec* s = findSchedule(schedule))
    for (const ScheduleParam& p : s->params) {
      if (p.integer) out[p.name] = static_cast<int64_t>(p.defaultValue);
      else out[p.name] = p.defaultValue;
    }
  return out;
}

void LearningRateSchedule::validate(const OptimizerConfig& cfg) {
  NS_CHECK(std::isfinite(cfg.lrMultiplier) && cfg.lrMultiplier > 0,
           "optimizer.lr_multiplier: expected a positive number, got {}", cfg.lrMultiplier);
  NS_CHECK(cfg.lrUpdateInterval >= 1, "optimizer.lr_update_interval: expected an integer >= 1 (iterations), got {}",
           cfg.lrUpdateInterval);
  NS_CHECK(std::isfinite(cfg.warmupEpochs) && cfg.warmupEpochs >= 0,
           "optimizer.warmup_epochs: expected a number >= 0, got {}", cfg.warmupEpochs);
  const ScheduleSpec* spec = findSchedule(cfg.lrSchedule);
  NS_CHECK(spec, "optimizer.lr_schedule: unknown schedule '{}' (known: none, cosine, step, exponential)",
           cfg.lrSchedule);
  NS_CHECK(cfg.scheduleParams.is_object(), "optimizer: expected the schedule parameters as a JSON object, got {}",
           cfg.scheduleParams.dump());
  for (const auto& [key, value] : cfg.scheduleParams.items()) {
    bool known = false;
    std::string names;
    for (const auto& p : spec->params) {
      known = known || key == p.name;
      names += (names.empty() ? "" : ", ") + std::string(p.name);
    }
    NS_CHECK(known, "optimizer.{}: not a parameter of the '{}' learning-rate schedule (known: {})", key,
             cfg.lrSchedule, names.empty() ? std::string("none") : names);
  }
  for (const auto& p : spec->params) scheduleParam(cfg, p);
}

LearningRateSchedule::LearningRateSchedule(const OptimizerConfig& cfg, double baseLr, int64_t iterationsPerEpoch,
                                           int64_t maxEpoch)
    : m_base(baseLr),
      m_multiplier(cfg.lrMultiplier),
      m_interval(cfg.lrUpdateInterval),
      m_iterationsPerEpoch(iterationsPerEpoch) {
  validate(cfg);
  NS_CHECK(std::isfinite(baseLr) && baseLr > 0, "optimizer: the base learning rate must be positive, got {}", baseLr);
  NS_CHECK(iterationsPerEpoch >= 1, "learning-rate schedule: iterations per epoch must be >= 1, got {}",
           iterationsPerEpoch);
  NS_CHECK(maxEpoch >= 1, "config.max_epoch: expected an integer >= 1, got {}", maxEpoch);
  m_total = iterationsPerEpoch * maxEpoch;
  m_warmup = std::llround(cfg.warmupEpochs * double(iterationsPerEpoch));
  const ScheduleSpec* spec = findSchedule(cfg.lrSchedule);
  for (const auto& p : spec->params) {
    const double v = scheduleParam(cfg, p);
    if (std::string(p.name) == "gamma") m_gamma = v;
    if (std::string(p.name) == "step_epochs") m_stepEpochs = int64_t(v);
  }
  if (cfg.lrSchedule == "cosine") m_kind = Kind::Cosine;
  if (cfg.lrSchedule == "step") m_kind = Kind::Step;
  if (cfg.lrSchedule == "exponential") m_kind = Kind::Exponential;
}

LearningRateSchedule LearningRateSchedule::rangeTest(double low, double high, int64_t iterations) {
  NS_CHECK(std::isfinite(low) && std::isfinite(high) && low > 0 && low < high,
           "learning-rate range test: expected 0 < low < high, got {} and {}", low, high);
  NS_CHECK(iterations >= 2, "learning-rate range test: expected at least 2 iterations, got {}", iterations);
  LearningRateSchedule s;
  s.m_kind = Kind::RangeTest;
  s.m_base = low;
  s.m_high = high;
  s.m_total = iterations;
  return s;
}

double LearningRateSchedule::at(int64_t iteration) const {
  NS_CHECK(iteration >= 0, "learning-rate schedule: iteration must be >= 0, got {}", iteration);
  if (m_kind == Kind::RangeTest) {
    const double t = std::min(1.0, double(iteration) / double(m_total - 1));
    return m_base * std::pow(m_high / m_base, t);
  }
  double lr = m_base;
  if (m_multiplier != 1.0) lr *= std::pow(m_multiplier, double(iteration / m_interval));
  if (iteration < m_warmup) lr *= double(iteration + 1) / double(m_warmup);
  const int64_t p = std::max<int64_t>(0, iteration - m_warmup);
  switch (m_kind) {
    case Kind::None:
      break;
    case Kind::Cosine: {
      const int64_t span = m_total - m_warmup;
      if (span > 0) lr *= 0.5 * (1.0 + std::cos(std::numbers::pi * double(std::min(p, span)) / double(span)));
      break;
    }
    case Kind::Step:
      lr *= std::pow(m_gamma, double(p / (m_stepEpochs * m_iterationsPerEpoch)));
      break;
    case Kind::Exponential:
      lr *= std::pow(m_gamma, double(p / m_iterationsPerEpoch));
      break;
    case Kind::RangeTest:
      break;  // returned above
  }
  return lr;
}

}  // namespace netsmith
