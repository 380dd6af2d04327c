// TrainingPosition (training_position.h): the state a checkpoint saves and a resume restores.
#include "engine/train/training_position.h"

#include <algorithm>

namespace netsmith::training {

void TrainingPosition::setLength(int64_t iterationsPerEpoch, int64_t maxEpoch) {
  m_iterationsPerEpoch = iterationsPerEpoch;
  m_maxEpoch = maxEpoch;
}

void TrainingPosition::addTrainingLoss(double lossSum, int64_t samples) {
  m_epochLossSum += lossSum;
  m_epochSamples += samples;
}

void TrainingPosition::startEpochClock() {
  m_epochStart = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_epochSeconds));
}

void TrainingPosition::stopEpochClock() { m_epochSeconds = epochSeconds(); }

double TrainingPosition::epochSeconds() const {
  return std::chrono::duration<double>(Clock::now() - m_epochStart).count();
}

CurveRow TrainingPosition::epochRow(double learningRate) const {
  return CurveRow{m_epoch + 1, m_epochLossSum / static_cast<double>(std::max<int64_t>(m_epochSamples, 1)), std::nullopt,
                  std::nullopt, 0.0, learningRate};
}

bool TrainingPosition::improvedBy(double validationError) {
  if (m_bestValidationError && !(validationError < *m_bestValidationError)) return false;
  m_bestValidationError = validationError;
  return true;
}

void TrainingPosition::nextEpoch() {
  ++m_epoch;
  m_iteration = 0;
  m_epochLossSum = 0.0;
  m_epochSamples = 0;
  m_epochSeconds = 0.0;
}

bool TrainingPosition::markCheckpointed() {
  const std::array<int64_t, 3> position{m_epoch, m_iteration, m_globalIteration};
  if (position == m_checkpointedAt) return false;
  m_checkpointedAt = position;
  return true;
}

Json TrainingPosition::checkpointMeta() const {
  return {{"epoch", m_epoch},
          {"iteration", m_iteration},
          {"global_iteration", m_globalIteration},
          {"epoch_loss_sum", m_epochLossSum},
          {"epoch_samples", m_epochSamples},
          {"epoch_seconds", m_epochSeconds},
          {"best_validation_error", protocol::optionalJson(m_bestValidationError)},
          {"curve", protocol::learningCurveToJson(m_curve)}};
}

std::optional<TrainingPosition::BatchChange> TrainingPosition::restore(const Json& m, int64_t logicalBatch) {
  m_epoch = m.at("epoch").get<int64_t>();
  m_iteration = m.at("iteration").get<int64_t>();
  m_globalIteration = m.at("global_iteration").get<int64_t>();
  m_epochLossSum = m.at("epoch_loss_sum").get<double>();
  m_epochSamples = m.at("epoch_samples").get<int64_t>();
  m_epochSeconds = m.value("epoch_seconds", 0.0);
  if (!m.at("best_validation_error").is_null()) m_bestValidationError = m["best_validation_error"].get<double>();
  // A run folder of an older version (no run.json "training": Note [Resume on other devices])
  // resumed on another number of devices (or processes): the logical batch and everything
  // counted in iterations follow the new plan; the position keeps the samples already trained.
  const int64_t oldBatch = m.value("logical_batch", logicalBatch);
  if (oldBatch == logicalBatch) {
    m_checkpointedAt = {m_epoch, m_iteration, m_globalIteration};
    return std::nullopt;
  }
  const BatchChange change{oldBatch, m_iteration};
  m_iteration = std::min(m_iteration * oldBatch / logicalBatch, m_iterationsPerEpoch);
  m_globalIteration = m_epoch * m_iterationsPerEpoch + m_iteration;
  return change;
}

void TrainingPosition::restoreCurve(const Json& meta, const std::string& where) {
  m_curve = protocol::learningCurveFromJson(meta.at("curve"), where);
}

}  // namespace netsmith::training
