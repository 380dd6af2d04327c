// The training plan as the engine describes it (docs/events.md, "The training plan"): how a
// project trains on its devices. `netsmith-cli train --dry-run --json` prints it as the `plan`
// event, the `started` event carries the same keys, and the GUI's Training page shows it.
// The engine's planner (engine/train/parallel_plan.h) extends this type with what only the
// trainer needs, so the plan that runs is the plan that is described.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/shape.h"
#include "engine/protocol/json_fields.h"

namespace netsmith::protocol {

// A device of the plan. In `started` it also has its name.
struct PlannedDevice {
  std::string id;     // "cpu:1", "cuda:0", "rank1/cpu:0"
  std::string name;   // "NVIDIA H100" (`started` only; empty in the dry-run plan)
  std::string host;   // the machine of an mpirun job's device, when given
  double load = 1;    // parallel.worker_load, as given (1 when absent)
  int64_t batch = 0;  // samples of each logical batch this device trains on; 0: idle
  int threads = 1;    // OpenMP threads of a CPU worker (1 on a GPU, 0 when idle)
  // Where its slice starts inside the logical batch: the batches of the devices before it. Not
  // written (it follows from the list); fromJson fills it in.
  int64_t offset = 0;

  bool idle() const { return batch == 0; }
};

// A dataset the run loads (Note [Sample storage]).
struct PlannedDataSet {
  std::string role;     // "training" | "validation"
  std::string source;   // the file read while training (the store, the IDX images file, the CSV)
  std::string storage;  // "streamed" | "bytes" | "float32"
  int64_t samples = 0;
  Shape shape;
  int64_t diskBytes = 0;
  int64_t memoryBytes = 0;
};

// Note [Memory before launch] (engine/train/memory_estimate.h): what one device will hold at its
// batch. "cpu" stands for the CPU workers together: they share the process, whose libraries and
// data are counted once; the per-worker parts are for one worker.
struct DeviceMemoryNeed {
  std::string device;               // "cuda:0", or "cpu"
  int workers = 1;                  // CPU: the workers sharing the process
  int64_t batch = 0;                // samples a worker holds at a time (a micro-batch with accumulation)
  int64_t validationBlock = 0;      // samples of a validation block (outputs only)
  int64_t parametersBytes = 0;      // per worker
  int64_t gradientsBytes = 0;       // per worker
  int64_t optimizerStateBytes = 0;  // per worker: the solver's buffers
  int64_t activationsBytes = 0;     // per worker: outputs and gradients kept for backward
  int64_t workspaceBytes = 0;       // GPU: cuDNN's algorithm trials (kept by the pool)
  int64_t baseBytes = 0;            // GPU: the CUDA context; CPU: the process's libraries (measured)
  int64_t communicationBytes = 0;   // GPU: NCCL's buffers
  int64_t dataBytes = 0;            // CPU: the datasets held and the batches read ahead
  int64_t totalBytes = 0;
  int64_t capacityBytes = 0;        // GPU: its memory; CPU: what the machine has available to the process
  int64_t largestBatch = 0;         // the largest batch per worker whose need fits the capacity; 0: unknown

  bool fits() const { return capacityBytes <= 0 || totalBytes <= capacityBytes; }
  Json toJson() const;
  static DeviceMemoryNeed fromJson(const FieldReader& o);
};

struct TrainingPlan {
  using DataSet = PlannedDataSet;

  std::vector<PlannedDevice> devices;  // every listed device, idle ones included, in the given order
  int activeDevices = 0;               // devices with batch > 0: the workers that run
  std::string lrPolicy;                // scale_lr | keep_logical_batch | none
  int64_t batchSize = 0;               // config.batch_size as written (per device)
  int64_t logicalBatch = 0;            // samples per iteration over all devices
  int64_t accumulation = 1;            // config.accumulate_gradients: micro-batches per device and step
  double clipGradientNorm = 0;         // optimizer.clip_gradient_norm: the gradients' global norm at most this; 0 off
  double emaDecay = 0;                 // optimizer.ema_decay: the weights' moving average validated and saved; 0 off
  int64_t trainSamples = 0;
  int64_t iterationsPerEpoch = 0;
  int64_t maxEpoch = 0;
  double baseLr = 0;                   // the solver's lr (alpha for Adam/AdamW) as configured
  double effectiveLr = 0;              // after lr_policy
  double lrScale = 1;                  // effectiveLr / baseLr
  int64_t lrUpdateInterval = 1;        // effective, in iterations
  int64_t warmupIterations = 0;
  bool deterministic = false;
  std::string precision = "float";     // config.precision
  std::string augmentationText = "off";  // config.augmentation for people ("horizontal flip, crop padding 4")
  // Reproducible mode only (written when deterministic): samples per forward/backward chunk, and
  // whether 1, 2 and 4 devices give the same weights (Note [Reproducible training]).
  int64_t chunk = 0;
  bool identicalAcrossDeviceCounts = false;
  // A resume kept the run's own logical batch and learning rate on other devices (Note [Resume on
  // other devices], engine/train/training_run_setup.cpp); written when true.
  bool logicalBatchKept = false;
  // Disk space (written when diskBytesNeeded > 0): one checkpoint, what the run folder needs and
  // what is free there.
  uint64_t checkpointBytes = 0;
  uint64_t diskBytesNeeded = 0;
  uint64_t diskBytesFree = 0;
  // The data and the memory (written when data is not empty).
  std::vector<PlannedDataSet> data;
  int64_t modelBytesPerWorker = 0;       // parameters, gradients and optimizer state
  int64_t activationBytesPerWorker = 0;  // a batch's outputs and their gradients, estimated from the graph
  int64_t memoryBytesNeeded = 0;         // all workers' model and activations, the datasets, the batches read ahead
  // Note [16-bit activations]: "float32", or the 16-bit storage of the layers whose GPU kernels
  // take it ("bfloat16", "float16") in half and bfloat16 on GPUs.
  std::string activationStorage = "float32";
  // GPUs: the smallest memory of the devices training, and the largest per-device batch whose
  // model and activations fit 90% of it (the rest kept for cuDNN's workspaces); 0: not known.
  int64_t deviceMemoryBytes = 0;
  int64_t largestBatchPerDevice = 0;
  // Each device's need (the CPU workers as one entry); written when not empty.
  std::vector<DeviceMemoryNeed> memory;
  std::vector<std::string> warnings;

  // The plan's keys, as `started` and the `plan` event write them (without "event").
  Json toJson() const;
  // Reads the plan's keys of `json` (a `plan` or `started` event); `document` names it in errors.
  // Note [Protocol reading rules].
  static TrainingPlan fromJson(const Json& json, const std::string& document = "training plan");
};

// "1×28×28"
std::string shapeText(const Shape& shape);

}  // namespace netsmith::protocol
