// runTraining(): trains a project (or resumes a run) and reports through the events stream.
// It owns the run folder (DESIGN.md §7): project snapshot, events.jsonl, learning_curve.csv,
// checkpoints/ and the final parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/train/events.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/run_control.h"

namespace netsmith {

// netsmith-cli lr-find (Note [Learning-rate range test], engine/study/lr_range_test.h): the rate
// ramps from low to high over `iterations` iterations (the project's rates, before lr_policy
// scales them for the devices) instead of following the project's schedule, and every iteration
// publishes its loss.
struct LearningRateRange {
  double low = 0;
  double high = 0;
  int64_t iterations = 0;
};

struct TrainOptions {
  std::string projectPath;  // a new run of this project ...
  std::string resumeRun;    // ... or continue this run folder from its newest valid checkpoint
  std::string runDir;       // where the new run goes; empty: <project folder>/<name>.runs/<YYYYMMDD-HHMMSS>
  std::optional<int64_t> maxEpoch;  // overrides config.max_epoch
  std::optional<int64_t> earlyStopping;  // overrides config.early_stopping (0: off)
  int64_t trainSamples = 0;         // > 0: train on the first N samples only (quick checks)
  int64_t validationSamples = 0;    // > 0: validate on the first N samples only
  std::vector<std::string> devices; // non-empty: overrides parallel.devices (netsmith-cli --devices)
  bool acceptEditedSettings = false; // resume although project.nsproj was edited (Note [One run per folder])
  std::string faultInjection;       // test-only: fault_injection.h
  bool profile = false;             // time every layer: profile.json and a `profile` event (Note [Layer profile])
  EventBus* events = nullptr;       // the trainer adds the run's events.jsonl itself
  RunControl* control = nullptr;
  std::optional<LearningRateRange> learningRateRange;
};

struct TrainResult {
  std::string status;  // "completed" | "stopped" | "failed"
  std::string message; // the error, when failed
  std::string runDir;
  std::string parametersSha256;
  std::optional<double> bestValidationError;
  int abandonedWorkers = 0;  // workers that hung and were given up: the process should exit now
  bool abandonProcess = false;  // a failed mpirun job: exit without MPI_Finalize (a rank may be gone)
};

// Never throws for a problem of the project, data or run: those end as status "failed" with
// an `error` event. The run folder is this run's alone (Note [One run per folder]): a folder
// that holds another run, or that another process is using, is refused the same way.
TrainResult runTraining(const TrainOptions& options);

// The plan a training run with these options would follow (the project, its data and devices
// are loaded and checked; nothing is trained or written). Throws Error on any problem.
TrainingPlan planRun(const TrainOptions& options);

}  // namespace netsmith
