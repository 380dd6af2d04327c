#include "engine/study/lr_range_test.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <filesystem>
#include <mutex>

#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/protocol/events.h"
#include "engine/protocol/json_fields.h"
#include "engine/train/trainer.h"

namespace fs = std::filesystem;

namespace netsmith::study {

namespace {

constexpr double kSmoothing = 0.98;
constexpr double kExplosion = 4;  // the smoothed loss this many times its smallest: the test ends
constexpr size_t kSettle = 5;     // points before the explosion rule applies (the average settles)

std::string threeDigits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

// The exponential moving average of the losses, bias-corrected, one loss at a time: the sink
// smooths each iteration as it comes (not the whole curve again), smoothLosses a whole curve.
class LossSmoother {
 public:
  double add(double loss) {
    m_average = kSmoothing * m_average + (1 - kSmoothing) * loss;
    m_weight *= kSmoothing;
    return m_average / (1 - m_weight);
  }

 private:
  double m_average = 0;
  double m_weight = 1;  // kSmoothing^count
};

// Records the iterations and ends the training when the test is over.
class RangeTestSink final : public EventSink {
 public:
  RangeTestSink(RangeTestResult& result, int64_t iterations, RunControl& control)
      : m_result(result), m_iterations(iterations), m_control(control) {}

  void publish(const Json& json) override {
    const auto name = json.find("event");
    if (name == json.end()) return;
    if (*name == protocol::StartedEvent::kName) {
      m_scale = protocol::StartedEvent::fromJson(json).plan.lrScale;
      return;
    }
    if (*name != protocol::IterationEvent::kName) return;
    const protocol::IterationEvent e = protocol::IterationEvent::fromJson(json);
    if (!protocol::defined(e.loss) || !protocol::defined(e.lr)) return;
    std::lock_guard lock(m_mutex);
    auto& points = m_result.points;
    if (!points.empty() && e.globalIteration <= points.back().iteration) return;
    points.push_back({e.globalIteration, e.lr / (m_scale > 0 ? m_scale : 1), e.loss, m_smoother.add(e.loss)});
    if (std::isfinite(points.back().smoothed)) m_smallest = std::min(m_smallest, points.back().smoothed);
    const double smallest = m_smallest;
    if (!std::isfinite(e.loss) || (points.size() > kSettle && points.back().smoothed > kExplosion * smallest)) {
      m_result.stoppedBecause = format("the loss exploded at rate {} (smoothed {}, its smallest {})",
                                       threeDigits(points.back().lr), threeDigits(points.back().smoothed),
                                       threeDigits(smallest));
      m_control.requestStop();
    } else if (e.globalIteration >= m_iterations) {
      m_result.stoppedBecause = format("{} iterations done", m_iterations);
      m_control.requestStop();
    }
  }

 private:
  RangeTestResult& m_result;
  int64_t m_iterations;
  RunControl& m_control;
  double m_scale = 1;
  LossSmoother m_smoother;
  double m_smallest = std::numeric_limits<double>::infinity();
  std::mutex m_mutex;
};

}  // namespace

void smoothLosses(std::vector<RangeTestPoint>& points) {
  LossSmoother smoother;
  for (auto& p : points) p.smoothed = smoother.add(p.loss);
}

std::optional<size_t> smallestLoss(const std::vector<RangeTestPoint>& points) {
  if (points.empty()) return std::nullopt;
  size_t best = 0;
  for (size_t i = 1; i < points.size(); ++i)
    if (std::isfinite(points[i].smoothed) && points[i].smoothed < points[best].smoothed) best = i;
  return best;
}

std::optional<size_t> steepestDescent(const std::vector<RangeTestPoint>& points) {
  const auto lowest = smallestLoss(points);
  if (points.size() < 3 || !lowest || *lowest < 1) return std::nullopt;
  std::optional<size_t> steepest;
  double slope = 0;
  for (size_t i = 1; i <= *lowest; ++i) {
    const double dx = std::log(points[i].lr) - std::log(points[i - 1].lr);
    if (dx <= 0) continue;
    const double s = (points[i].smoothed - points[i - 1].smoothed) / dx;
    if (!steepest || s < slope) {
      steepest = i;
      slope = s;
    }
  }
  return steepest;
}

Json RangeTestResult::toJson() const {
  Json curve = Json::array();
  for (const auto& p : points) curve.push_back({{"iteration", p.iteration}, {"lr", p.lr}, {"loss", p.loss}, {"smoothed_loss", p.smoothed}});
  return {{"points", curve},
          {"suggested_lr", suggestedLr ? Json(*suggestedLr) : Json(nullptr)},
          {"minimum_loss_lr", minimumLossLr ? Json(*minimumLossLr) : Json(nullptr)},
          {"stopped_because", stoppedBecause},
          {"run", runDir}};
}

RangeTestResult runRangeTest(const RangeTestOptions& options) {
  NS_CHECK(options.low > 0 && options.low < options.high && std::isfinite(options.high),
           "lr-find: expected 0 < --min-lr < --max-lr, got {} and {}", options.low, options.high);
  NS_CHECK(options.iterations >= 10, "lr-find: expected at least 10 iterations, got {}", options.iterations);
  RangeTestResult result;
  RunControl ownControl;
  RunControl& control = options.control ? *options.control : ownControl;
  TrainOptions train;
  train.projectPath = options.projectPath;
  train.runDir = options.runDir;
  if (train.runDir.empty()) {
    const fs::path project(options.projectPath);
    train.runDir = (project.parent_path() / (project.stem().string() + ".runs") / (timestampFolderName() + "-lr-find")).string();
  }
  train.devices = options.devices;
  train.maxEpoch = options.iterations;  // at least one iteration an epoch: the sink ends it sooner
  train.learningRateRange = LearningRateRange{options.low, options.high, options.iterations};
  EventBus bus;
  RangeTestSink sink(result, options.iterations, control);
  bus.add(&sink);
  if (options.events) bus.add(options.events);
  train.events = &bus;
  train.control = &control;
  const TrainResult trained = runTraining(train);
  result.runDir = trained.runDir;
  if (trained.status == "failed") {
    // The divergence guard ends the run when the loss explodes: that ends the test as well.
    NS_CHECK(!result.points.empty() && trained.message.find("loss") != std::string::npos, "lr-find: {}", trained.message);
    result.stoppedBecause = "the loss exploded: " + trained.message;
  } else if (result.stoppedBecause.empty()) {
    result.stoppedBecause = trained.status == "stopped" ? "stopped" : "the training ended";
  }
  if (const auto i = steepestDescent(result.points)) result.suggestedLr = result.points[*i].lr;
  if (const auto i = smallestLoss(result.points)) result.minimumLossLr = result.points[*i].lr;
  if (fs::is_directory(result.runDir))
    writeTextAtomically(fs::path(result.runDir) / "lr_find.json", protocol::jsonText(result.toJson(), 2) + "\n");
  return result;
}

}  // namespace netsmith::study
