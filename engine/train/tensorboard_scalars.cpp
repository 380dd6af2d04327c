#include "engine/train/tensorboard_scalars.h"

#include <cmath>
#include <string>

namespace netsmith::training {
namespace {

// Adds `tag` when `value` is defined (kUndefined is NaN).
void add(TensorBoardPoint& point, std::string tag, double value) {
  if (std::isnan(value)) return;
  point.scalars.push_back({std::move(tag), static_cast<float>(value)});
}

void add(TensorBoardPoint& point, std::string tag, const std::optional<double>& value) {
  if (value) add(point, std::move(tag), *value);
}

}  // namespace

std::optional<TensorBoardPoint> TensorBoardScalars::of(const protocol::Event& event) {
  std::optional<TensorBoardPoint> point;
  if (const auto* started = std::get_if<protocol::StartedEvent>(&event)) {
    m_iterationsPerEpoch = started->plan.iterationsPerEpoch;
    m_logicalBatch = started->plan.logicalBatch;
    m_startStep = (started->startEpoch - 1) * m_iterationsPerEpoch + started->startIteration;
    m_lastStep = m_startStep;
  } else if (const auto* it = std::get_if<protocol::IterationEvent>(&event)) {
    point = iteration(*it);
  } else if (const auto* ep = std::get_if<protocol::EpochEvent>(&event)) {
    point = epoch(*ep);
  } else if (const auto* profiled = std::get_if<protocol::ProfileEvent>(&event)) {
    point = profile(*profiled);
  }
  if (point) m_lastStep = std::max(m_lastStep, point->step);
  return point;
}

TensorBoardPoint TensorBoardScalars::iteration(const protocol::IterationEvent& e) const {
  TensorBoardPoint p;
  p.step = e.globalIteration;
  add(p, "loss/train_iteration", e.loss);
  add(p, "learning_rate", e.lr);
  add(p, "throughput/samples_per_s", e.samplesPerS);
  if (e.samplesPerS > 0 && m_logicalBatch > 0)
    add(p, "time/iteration_ms", 1000.0 * static_cast<double>(m_logicalBatch) / e.samplesPerS);
  add(p, "memory/process_mb", e.processMemoryMb);
  for (const protocol::DeviceFigures& d : e.devices) {
    const std::string prefix = "device/" + d.id + "/";
    add(p, prefix + "utilization", d.utilization);
    add(p, prefix + "memory_mb", d.memoryMb);
    add(p, prefix + "compute_ms", d.computeMs);
    add(p, prefix + "data_ms", d.dataMs);
    add(p, prefix + "sync_ms", d.syncMs);
    add(p, prefix + "wait_ms", d.waitMs);
    add(p, prefix + "temperature_c", d.temperatureC);
    add(p, prefix + "power_w", d.powerW);
  }
  return p;
}

TensorBoardPoint TensorBoardScalars::epoch(const protocol::EpochEvent& e) const {
  TensorBoardPoint p;
  p.step = e.epoch * m_iterationsPerEpoch;
  add(p, kTrainLossTag, e.trainLoss);
  add(p, kValidationLossTag, e.validationLoss);
  add(p, kValidationErrorTag, e.validationError);
  add(p, "time/epoch_s", e.seconds);
  if (e.scaling) {
    add(p, "scaling/samples_per_s", e.scaling->samplesPerS);
    add(p, "scaling/communication_share", e.scaling->communicationShare);
    add(p, "scaling/data_share", e.scaling->dataShare);
    add(p, "scaling/sync_s", e.scaling->syncSeconds);
    add(p, "scaling/speedup_estimate", e.scaling->speedupEstimate);
  }
  return p;
}

TensorBoardPoint TensorBoardScalars::profile(const protocol::ProfileEvent& e) const {
  TensorBoardPoint p;
  p.step = m_lastStep;
  const Json& profile = e.profile;
  if (profile.value("iterations", int64_t{0}) <= 0) return p;  // nothing was profiled
  add(p, "profile/iteration_ms", profile.value("iteration_ms", protocol::kUndefined));
  for (const Json& w : profile.value("workers", Json::array())) {
    const std::string prefix = "profile/" + w.value("id", std::string("worker")) + "/";
    for (const char* key : {"step_ms", "forward_ms", "backward_ms", "data_ms", "buckets_ms", "optimizer_ms",
                            "allreduce_wait_ms", "other_ms"})
      add(p, prefix + key, w.value(key, protocol::kUndefined));
  }
  return p;
}

}  // namespace netsmith::training
