// TrainingPlan: how a project trains on its devices, worked out before training starts — the
// multi-device rules of DESIGN.md §6 applied to the project, the device list and the dataset.
// The trainer follows it, the `started` event carries it, and `netsmith-cli train --dry-run`
// prints it, so what the user reads is what runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/shape.h"
#include "engine/project/project.h"
#include "engine/protocol/training_plan.h"

namespace netsmith {

// CPU workers may outnumber the cores (they then share them, with a warning), up to this many per core.
inline constexpr int kCpuWorkersPerCore = 4;

// A device of the plan: the protocol's (engine/protocol/training_plan.h), so the plan that runs is
// the plan that is described.
using DevicePlan = protocol::PlannedDevice;

// The described plan (protocol::TrainingPlan: every field the `started` event and the dry run
// write) and what only the trainer needs besides.
struct TrainingPlan : protocol::TrainingPlan {
  std::string precisionNote;  // how the devices compute config.precision, for people ("bf16 products, ...")
  Augmentation augmentation;  // config.augmentation: applied to training batches only (described in augmentationText)
  std::string runFolder;      // where the disk space was measured (the dry run's text)
  // The optimizer section to train with: the effective lr and update interval filled in.
  OptimizerConfig optimizer;

  // Several lines for people (the dry run and the progress bar's header).
  std::string toText() const;
};

// The devices a project trains on: --devices (a comma-separated list, when given) over
// parallel.devices. Errors name the flag or JSON path.
std::vector<std::string> parseDeviceList(const std::string& commaSeparated);

// A resumed run's own logical batch and learning-rate scale, as its first session planned them
// (Note [Resume on other devices], training_run_setup.cpp): a resume on other devices shares the
// same logical batch among them and keeps the learning rate, whatever lr_policy would give there.
struct KeptBatch {
  int64_t logicalBatch = 0;
  double lrScale = 1;
};

// Applies the rules to `project` (whose parallel.devices are the devices to use) for a training
// set of trainSamples samples on a machine with `cores` cores (at most kCpuWorkersPerCore CPU
// workers per core: cpu:N beyond that is an error). Throws Error naming the JSON path
// and what to choose when the rules cannot be met (keep_logical_batch with a batch size the
// devices cannot share evenly, a device this build cannot train on, augmentation of an Input that
// takes vectors, ...). With `kept` (a resume), the logical batch and the learning-rate scale are
// those, shared by the active devices in proportion to their loads (unevenly when they do not
// divide it; a warning says what that costs in reproducible mode).
TrainingPlan planTraining(const Project& project, int64_t trainSamples, int64_t maxEpoch, int cores,
                          bool hasBatchNormalization, const KeptBatch* kept = nullptr);

// OpenMP threads of each of `devices` CPU workers (Note [CPU threads per worker]):
// parallel.threads_per_device when set; else, when results must not depend on the number of
// devices (reproducible training, evaluation), 1, because a multi-threaded kernel's sums depend on
// its thread count (Note [Reproducible training]); else the cores shared out.
int cpuThreadsPerWorker(int threadsPerDevice, bool sameOnAnyDeviceCount, int cores, int devices);

}  // namespace netsmith
