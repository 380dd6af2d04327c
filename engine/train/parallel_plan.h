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

namespace netsmith {

// CPU workers may outnumber the cores (they then share them, with a warning), up to this many per core.
inline constexpr int kCpuWorkersPerCore = 4;

struct DevicePlan {
  std::string id;    // "cpu:1"
  double load = 1;   // parallel.worker_load, as given (1 when absent)
  int64_t batch = 0; // samples of each logical batch this device trains on; 0: idle
  int64_t offset = 0;  // where its slice starts inside the logical batch
  int threads = 1;     // OpenMP threads of a CPU worker
};

struct TrainingPlan {
  std::vector<DevicePlan> devices;   // every listed device, idle ones included, in the given order
  int activeDevices = 0;             // devices with batch > 0: the workers that run
  std::string lrPolicy;
  int64_t batchSize = 0;             // config.batch_size as written (per device)
  int64_t logicalBatch = 0;          // samples per iteration over all devices
  int64_t trainSamples = 0;
  int64_t iterationsPerEpoch = 0;
  int64_t maxEpoch = 0;
  double baseLr = 0;                 // the solver's lr (alpha for Adam/AdamW) as configured
  double effectiveLr = 0;            // after lr_policy
  double lrScale = 1;                // effectiveLr / baseLr
  int64_t lrUpdateInterval = 1;      // effective, in iterations
  int64_t warmupIterations = 0;
  bool deterministic = false;
  std::string precision = "float";   // config.precision
  std::string precisionNote;         // how the devices compute it, for people ("bf16 products, ...")
  int64_t chunk = 0;                 // reproducible mode: samples per forward/backward chunk
  Augmentation augmentation;         // config.augmentation: applied to training batches only
  // Reproducible mode with lr_policy keep_logical_batch and chunks that fit every device count:
  // 1, 2 and 4 devices give the same weights (Note [Reproducible training]).
  bool identicalAcrossDeviceCounts = false;
  // A resume kept the run's own logical batch and learning rate on its devices (KeptBatch).
  bool logicalBatchKept = false;
  // Disk space (filled by the trainer, which knows the network; 0: not known): one checkpoint,
  // what the run folder needs (run_folder.h diskNeed), and what is free there.
  uint64_t checkpointBytes = 0;
  uint64_t diskBytesNeeded = 0;
  uint64_t diskBytesFree = 0;
  std::string runFolder;
  // The data and the memory (filled by the trainer; Note [Sample storage]): each dataset's
  // samples, where they are kept and their size on disk, and what the run will hold in memory.
  struct DataSet {
    std::string role;     // "training" | "validation"
    std::string source;   // the file read while training (the store, the IDX images file, the CSV)
    std::string storage;  // "streamed" | "bytes" | "float32"
    int64_t samples = 0;
    Shape shape;
    int64_t diskBytes = 0;
    int64_t memoryBytes = 0;
  };
  std::vector<DataSet> data;
  int64_t modelBytesPerWorker = 0;     // parameters, gradients and optimizer state
  int64_t activationBytesPerWorker = 0;  // a batch's outputs and their gradients, estimated from the graph
  int64_t memoryBytesNeeded = 0;       // all workers' model and activations, the datasets, the batches read ahead
  std::vector<std::string> warnings;

  // The optimizer section to train with: the effective lr and update interval filled in.
  OptimizerConfig optimizer;

  // The plan's keys, as the `started` event and `train --dry-run --json` write them.
  Json toJson() const;
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
