// The events stream of docs/events.md (format version 1) as C++ types: one struct per event,
// each with its one writer (toJson, "event" key included) and its one reader (fromJson, Note
// [Protocol reading rules]). The engine builds these and writes them; `netsmith-cli`'s progress
// bar and sweep, and the GUI, read them back with the same code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/protocol/initial_parameters_report.h"
#include "engine/protocol/json_fields.h"
#include "engine/protocol/training_plan.h"

namespace netsmith::protocol {

// Version of the events format; every `started` event carries it.
inline constexpr int kEventsFormatVersion = 1;

// What a resume on other devices changed against the run's previous session (Note [Resume on
// other devices], engine/train/training_run_setup.cpp).
struct DeviceChange {
  struct Slice {
    std::string id;
    int64_t batch = 0;
  };
  std::string message;  // "Resumed on cpu:0 (was cpu:0,cpu:1): per-device batch 64 (was 32), ..."
  std::vector<Slice> devices, previousDevices;  // the active devices and their slices
  int64_t logicalBatch = 0, previousLogicalBatch = 0;
  double effectiveLr = kUndefined, previousEffectiveLr = kUndefined;

  Json toJson() const;
  static DeviceChange fromJson(const Json& json, const Where& where);
};

// Once, before the first iteration: the plan, and what the run is.
struct StartedEvent {
  static constexpr const char* kName = "started";
  TrainingPlan plan;  // its devices carry their names here
  int formatVersion = kEventsFormatVersion;
  std::string run;      // the run folder
  std::string project;  // the project's name
  int64_t batchPerDevice = 0;  // the first working device's slice of the logical batch
  std::string solver;
  int64_t validationSamples = 0;
  int64_t parameters = 0;
  bool resumed = false;
  int64_t startEpoch = 1;      // 1-based
  int64_t startIteration = 0;  // iterations already done in startEpoch
  std::optional<DeviceChange> deviceChange;  // a resume on other devices

  Json toJson() const;
  static StartedEvent fromJson(const Json& json);
};

// `train --dry-run --json`: the plan alone.
struct PlanEvent {
  static constexpr const char* kName = "plan";
  TrainingPlan plan;

  Json toJson() const;
  static PlanEvent fromJson(const Json& json);
};

// One working device's figures in an `iteration` event, averaged since the previous one.
struct DeviceFigures {
  std::string id;
  double computeMs = kUndefined;    // forward, backward and update per iteration
  double dataMs = kUndefined;       // assembling the batch (not part of computeMs)
  double syncMs = kUndefined;       // the communication thread's all-reduce time
  double waitMs = kUndefined;       // blocked after backward until the reduced gradients arrive
  double overlapMs = kUndefined;    // the part of syncMs hidden behind backward
  double utilization = kUndefined;  // busy fraction 0..1
  double memoryMb = kUndefined;     // the replica's tensors and optimizer state
  std::optional<double> temperatureC;  // GPUs with NVML only
  std::optional<double> powerW;        // GPUs with NVML only
};

struct IterationEvent {
  static constexpr const char* kName = "iteration";
  int64_t epoch = 0;      // 1-based
  int64_t iteration = 0;  // 1-based, within the epoch
  int64_t iterationsPerEpoch = 0;
  int64_t globalIteration = 0;
  double loss = kUndefined;  // mean over the logical batch
  double lr = kUndefined;
  double samplesPerS = kUndefined;
  double etaS = kUndefined;
  double processMemoryMb = kUndefined;
  // Seconds since this process began training (a resume counts from its own start): a run's
  // time is the sum over its sessions' last values (the console's "Run completed in").
  double elapsedS = kUndefined;
  std::vector<DeviceFigures> devices;

  Json toJson() const;
  static IterationEvent fromJson(const Json& json);
};

// An epoch's data-parallel figures (Note [Scaling summary], engine/train/run_figures.cpp).
struct EpochScaling {
  int64_t devices = 0;
  double samplesPerS = kUndefined;          // training only
  double communicationShare = kUndefined;   // the workers' wait over compute + wait
  double dataShare = kUndefined;            // assembling batches over compute + wait
  double syncSeconds = kUndefined;
  double speedupEstimate = kUndefined;      // summed compute over the epoch's training wall time
};

struct EpochEvent {
  static constexpr const char* kName = "epoch";
  int64_t epoch = 0;  // 1-based
  double trainLoss = kUndefined;
  std::optional<double> validationLoss;   // none without a validation set, or not validated this epoch
  std::optional<double> validationError;  // none also for a regression loss
  double seconds = kUndefined;
  double lr = kUndefined;
  std::optional<EpochScaling> scaling;

  Json toJson() const;
  static EpochEvent fromJson(const Json& json);
};

struct CheckpointEvent {
  static constexpr const char* kName = "checkpoint";
  int64_t epoch = 0;      // the position the checkpoint resumes at
  int64_t iteration = 0;
  int64_t globalIteration = 0;
  std::string path;       // relative to the run folder

  Json toJson() const;
  static CheckpointEvent fromJson(const Json& json);
};

// Where a run stands when it pauses or resumes: iterations done.
struct RunPosition {
  int64_t epoch = 0;  // 1-based
  int64_t iteration = 0;
  int64_t globalIteration = 0;
};

struct PausedEvent : RunPosition {
  static constexpr const char* kName = "paused";
  Json toJson() const;
  static PausedEvent fromJson(const Json& json);
};

struct ResumedEvent : RunPosition {
  static constexpr const char* kName = "resumed";
  Json toJson() const;
  static ResumedEvent fromJson(const Json& json);
};

// A `--resume` run restored a checkpoint.
struct ResumedFromCheckpointEvent {
  static constexpr const char* kName = "resumed_from_checkpoint";
  std::string path;
  int64_t epoch = 0;  // 1-based: the epoch it continues
  int64_t iteration = 0;
  std::optional<DeviceChange> deviceChange;  // a resume on other devices

  Json toJson() const;
  static ResumedFromCheckpointEvent fromJson(const Json& json);
};

struct WarningEvent {
  static constexpr const char* kName = "warning";
  std::string message;
  Json toJson() const;
  static WarningEvent fromJson(const Json& json);
};

// The run cannot go on; the message names the file, JSON path or iteration.
// Note [Divergence] (engine/train/divergence_guard.h): why a run diverged, where it first went
// wrong and what to try; the `divergence` object of the `error` and `finished` events.
struct Divergence {
  std::string reason;           // "the training loss became inf", "a gradient became nan", ...
  int64_t epoch = 0;            // where it was detected, 1-based
  int64_t iteration = 0;        // in the epoch, 1-based
  int64_t globalIteration = 0;  // 1-based
  // The diagnosis pass on the failing batch (Note [Divergence diagnosis]): the first layer where
  // it happened, the pass ("forward", "backward" or "parameters") and what was seen there. block
  // and pass are empty when the diagnosis could not reproduce it.
  std::string block;
  std::string pass;
  std::string finding;
  double largestGradientNorm = kUndefined;  // the largest finite global gradient norm before it
  int64_t largestGradientNormIteration = 0;  // the global iteration (1-based) of that norm; 0: none
  double learningRate = kUndefined;          // the learning rate of the failing iteration
  std::vector<std::string> advice;           // sentences, the most useful first

  Json toJson() const;
  static Divergence fromJson(const Json& json, const Where& where);
};

struct ErrorEvent {
  static constexpr const char* kName = "error";
  std::string message;
  std::optional<Divergence> divergence;  // when the run diverged
  Json toJson() const;
  static ErrorEvent fromJson(const Json& json);
};

// `train --profile`: the run folder's profile.json, kept as JSON (its own format, docs/events.md
// "The profile"; engine/train/profiler.h writes and reads it).
struct ProfileEvent {
  static constexpr const char* kName = "profile";
  Json profile;  // an object, without "event"
  Json toJson() const;
  static ProfileEvent fromJson(const Json& json);
};

// Note [Scaling verdict] (engine/train/scaling_verdict.h).
struct ScalingVerdict {
  int64_t devices = 0;
  double samplesPerS = kUndefined;
  double singleDeviceSamplesPerS = kUndefined;
  bool singleDeviceMeasured = false;  // false: estimated from the workers' clocks
  std::string baselineRun;            // the measured baseline's run folder; empty (null) when estimated
  double speedup = kUndefined;
  double efficiency = kUndefined;
  double allreduceShare = kUndefined;
  double allreduceHidden = kUndefined;
  std::string text;  // the verdict in one sentence

  Json toJson() const;
  static ScalingVerdict fromJson(const Json& json, const Where& where);
};

// A GPU's sensors over the run.
struct GpuSummary {
  std::string id;
  std::optional<double> maxTemperatureC;
  std::optional<double> meanPowerW;
  // The most memory in use on the GPU during the run (the driver's figure, sampled every 100 ms).
  std::optional<int64_t> peakMemoryMb;

  Json toJson() const;
  static GpuSummary fromJson(const Json& json, const Where& where);
};

// A run that ended early (Note [Early stopping], engine/train/early_stopping.h): the validation
// error had not improved for `patience` validations, and the best epoch's parameters were kept.
struct EarlyStop {
  int64_t epoch = 0;      // the epoch it stopped after
  int64_t bestEpoch = 0;  // whose parameters the run keeps
  double bestValidationError = kUndefined;
  int64_t patience = 0;
  double minDelta = 0;
  std::string message;    // for people
  std::optional<int64_t> parametersEpoch;  // the epoch of the best.nsparams restored (null: not recorded)

  Json toJson() const;
  static EarlyStop fromJson(const Json& json, const Where& where);
};

struct FinishedEvent {
  static constexpr const char* kName = "finished";
  std::string status;  // completed | stopped | failed
  std::string run;     // the run folder; empty (not written) when the run failed before it had one
  // Set when the run trained to an end (completed or stopped), with the two below; unset (none of
  // the three written) when it failed.
  std::optional<int64_t> epochs;
  std::optional<double> bestValidationError;  // null: no validation error was measured
  std::string parametersSha256;
  std::string message;          // when failed, or already completed; not written when empty
  bool alreadyCompleted = false;  // a resume of a completed run: nothing trained (written when true)
  std::optional<EarlyStop> earlyStopped;          // config.early_stopping ended the run
  std::optional<ScalingVerdict> scalingVerdict;  // after a run on several devices
  std::vector<GpuSummary> gpus;                   // on GPUs (not written when empty)
  std::optional<int64_t> processPeakMemoryMb;     // the leader process's most resident memory
  std::optional<Divergence> divergence;           // failed because the run diverged

  Json toJson() const;
  static FinishedEvent fromJson(const Json& json);
};

// An event this reader does not know (a newer engine's): kept whole.
struct UnknownEvent {
  std::string name;
  Json json;
};

using Event = std::variant<StartedEvent, PlanEvent, IterationEvent, EpochEvent, CheckpointEvent, PausedEvent, ResumedEvent,
                           ResumedFromCheckpointEvent, WarningEvent, ErrorEvent, ProfileEvent, FinishedEvent,
                           InitialParametersEvent, UnknownEvent>;

// The event's "event" name.
std::string eventName(const Event& event);
// The event's line (without the newline): what `--events -` and events.jsonl hold.
Json eventToJson(const Event& event);
// Reads a JSON object with an "event" name. Throws ReadError naming the event and the field when
// it does not match (Note [Protocol reading rules]); an unknown name gives UnknownEvent.
Event eventFromJson(const Json& json);

// One line of the stream, as a reader meets it.
struct EventLine {
  enum class Kind {
    Event,     // `event` holds it
    NotJson,   // not a JSON value (a library's own output, a line cut short)
    NotEvent,  // JSON, but not an object with a string "event"
    Damaged,   // an event whose fields do not match: `error` names the field
  };
  Kind kind = Kind::NotJson;
  std::optional<Event> event;
  std::string error;
};
EventLine readEventLine(std::string_view line);

}  // namespace netsmith::protocol
