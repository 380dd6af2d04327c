// TrainingPosition: the state of a training run that a checkpoint saves and a resume restores
// (one part of TrainingRun, training_run.h): where the run stands (the next iteration to run, as
// epoch, iteration in the epoch and global iteration), the running totals of the epoch being
// trained (loss, samples, seconds), the best validation error, the learning curve so far, and
// the position last checkpointed. It knows nothing of files, devices or processes: every process
// of a job holds the same position, and the leader's checkpoint carries it (checkpointMeta()).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/protocol/learning_curve.h"

namespace netsmith {
using Json = nlohmann::json;
}

namespace netsmith::training {

// A row of learning_curve.csv and of the checkpoints' curve (engine/protocol/learning_curve.h).
using CurveRow = protocol::LearningCurveRow;

class TrainingPosition {
 public:
  using Clock = std::chrono::steady_clock;

  // The run's length, from its plan: iterations per epoch and epochs.
  void setLength(int64_t iterationsPerEpoch, int64_t maxEpoch);
  int64_t iterationsPerEpoch() const { return m_iterationsPerEpoch; }
  int64_t maxEpoch() const { return m_maxEpoch; }

  // The next iteration to run: epoch and iteration 0-based, global counted over the run.
  int64_t epoch() const { return m_epoch; }
  int64_t iteration() const { return m_iteration; }
  int64_t globalIteration() const { return m_globalIteration; }
  // Iterations left in the run after `done` iterations of the current epoch.
  int64_t remainingIterations(int64_t done) const { return (m_maxEpoch - m_epoch) * m_iterationsPerEpoch - done; }
  bool epochsLeft() const { return m_epoch < m_maxEpoch; }
  bool epochUnfinished() const { return m_iteration < m_iterationsPerEpoch; }

  // Every process, after an iteration's step: the global iteration moves on.
  void stepped() { ++m_globalIteration; }
  // The leader, for a step whose loss was finite: the epoch's training loss adds its sum.
  void addTrainingLoss(double lossSum, int64_t samples);
  // The iteration is done (after stepped()).
  void nextIteration() { ++m_iteration; }

  // The epoch's clock, which goes on from the seconds a checkpoint taken inside the epoch had
  // counted; stopEpochClock() keeps the seconds so far for such a checkpoint.
  void startEpochClock();
  void stopEpochClock();
  double epochSeconds() const;

  // The epoch's learning-curve row as trained: its training loss and learning rate (validation
  // and seconds are the caller's).
  CurveRow epochRow(double learningRate) const;
  // A validation error: true when it is the best of the run so far (it becomes the best).
  bool improvedBy(double validationError);
  std::optional<double> bestValidationError() const { return m_bestValidationError; }
  // The epoch is over: its row joins the curve (appendToCurve), then the position moves to the
  // next epoch's start (nextEpoch: the epoch's totals start afresh).
  void appendToCurve(const CurveRow& row) { m_curve.push_back(row); }
  void nextEpoch();
  const std::vector<CurveRow>& curve() const { return m_curve; }

  // Every process decides alike before a checkpoint: false when this position was checkpointed
  // (written or restored) already, so a stop right after one has nothing new to write; true
  // marks it checkpointed.
  bool markCheckpointed();

  // The position's part of a checkpoint's meta: epoch, iteration, global_iteration,
  // epoch_loss_sum, epoch_samples, epoch_seconds, best_validation_error and curve.
  Json checkpointMeta() const;
  // A resume: the position of a checkpoint's meta (not yet its curve, which restoreCurve() reads),
  // kept as the position checkpointed. When the checkpoint was trained with another logical batch
  // (`logical_batch`: a run folder of an older version, Note [Resume on other devices]), the
  // position keeps the samples already trained in the epoch at the new batch and is not marked
  // checkpointed; returns the old batch and iteration then.
  struct BatchChange {
    int64_t oldBatch = 0;
    int64_t oldIteration = 0;
  };
  std::optional<BatchChange> restore(const Json& meta, int64_t logicalBatch);
  // Error names `where` when the curve does not read.
  void restoreCurve(const Json& meta, const std::string& where);

  // A resume of a run that had finished, whose parameters.nsparams holds the checkpoint's weights:
  // nothing to train, nothing to rewrite.
  void setAlreadyCompleted(bool completed) { m_alreadyCompleted = completed; }
  bool alreadyCompleted() const { return m_alreadyCompleted; }

 private:
  int64_t m_iterationsPerEpoch = 0;
  int64_t m_maxEpoch = 0;
  int64_t m_epoch = 0;
  int64_t m_iteration = 0;
  int64_t m_globalIteration = 0;
  double m_epochLossSum = 0.0;
  int64_t m_epochSamples = 0;
  double m_epochSeconds = 0.0;
  Clock::time_point m_epochStart = Clock::now();
  std::optional<double> m_bestValidationError;
  std::vector<CurveRow> m_curve;
  // (epoch, iteration, global iteration) of the last checkpoint written or restored.
  std::array<int64_t, 3> m_checkpointedAt{-1, -1, -1};
  bool m_alreadyCompleted = false;
};

}  // namespace netsmith::training
