// EarlyStopping: config.early_stopping, the patience rule of a training run (issue 17 item 2).
//
// Note [Early stopping]
// After each validation the trainer gives the validation error to observe(). An error lower than
// the best so far by more than config.early_stopping_min_delta is an improvement (the first
// validation always is); `patience` validations in a row without one end the run, as Keras'
// EarlyStopping(patience, min_delta) does. Validations happen every config.monitor_interval
// epochs, so patience counts validations, not epochs. An early stop is a normal end: the run's
// status is "completed", and the `finished` event and run.json say `early_stopped`.
//
// The parameters kept are the best ones (Keras' restore_best_weights): the trainer keeps
// RUN/best.nsparams (the epoch with the lowest validation error) whenever early stopping is on,
// whatever config.save_best says, and at an early stop every worker loads it, so that
// parameters.nsparams, parameters_sha256 and evaluation use the best epoch's parameters.
//
// Resume: nothing is stored for it. The checkpoint's learning curve holds every validation error
// of the run, and replaying it through observe() gives the same counter (and, for a run that had
// stopped early, the same decision) on any number of devices.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/project/project.h"

namespace netsmith {

class Replica;
class WorkerPool;

class EarlyStopping {
 public:
  EarlyStopping() = default;
  // patience 0: off (observe() never stops).
  EarlyStopping(int64_t patience, double minDelta);

  bool enabled() const { return m_patience > 0; }
  // The validation error of `epoch` (1-based). True when the run is to stop after this epoch.
  bool observe(int64_t epoch, double error);
  bool stopped() const { return m_stoppedAt > 0; }

  int64_t patience() const { return m_patience; }
  int64_t bestEpoch() const { return m_bestEpoch; }
  double bestError() const { return m_bestError; }
  // Validations since the best one.
  int64_t waited() const { return m_waited; }

  // "stopped early at epoch 7: validation error has not improved for 3 validations since epoch 4
  // (best 0.112)". Only once stopped().
  std::string message() const;
  // The `early_stopped` object of the finished event and run.json: epoch, best_epoch,
  // best_validation_error, patience, min_delta, message.
  Json summary() const;

 private:
  int64_t m_patience = 0;
  double m_minDelta = 0.0;
  int64_t m_bestEpoch = 0;
  double m_bestError = 0.0;
  int64_t m_waited = 0;
  int64_t m_stoppedAt = 0;
};

// The run's rule: config.early_stopping and config.early_stopping_min_delta, or the run's own
// override (run.json settings "early_stopping", netsmith-cli train --early-stopping N).
EarlyStopping earlyStoppingOf(const TrainingConfig& config, const Json& runSettings);

// At an early stop: loads RUN/best.nsparams into every replica (each worker copies into its own,
// on its thread) and returns the `early_stopped` summary with "parameters_epoch", the epoch whose
// parameters the run keeps. Error names the file when it is missing, damaged, of another run, or
// does not fit the network.
Json keepBestParameters(const EarlyStopping& rule, const std::filesystem::path& runDir, const std::string& runId,
                        std::vector<std::unique_ptr<Replica>>& replicas, WorkerPool& pool);

}  // namespace netsmith
