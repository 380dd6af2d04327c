// Value-type events of the engine's events stream (docs/events.md, format version 1), as the GUI
// reads them from `netsmith-cli train --events -` and from a run folder's events.jsonl.
// A number the engine writes as null (no validation set, a non-finite value) is NaN here.
// Keys the GUI does not know are ignored; an event type it does not know is kept as Unknown.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <cmath>
#include <limits>
#include <optional>
#include <variant>

namespace netsmith::gui {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
inline bool hasValue(double v) { return !std::isnan(v); }

// One device's figures in an `iteration` event.
struct DeviceSample {
  QString id;
  double computeMs = kNoValue;
  double syncMs = kNoValue;
  double waitMs = kNoValue;
  double utilization = kNoValue;  // busy fraction 0..1
  double memoryMb = kNoValue;
  double overlapMs = kNoValue;      // all-reduce time hidden behind backward
  double temperatureC = kNoValue;   // GPUs only (NVML)
  double powerW = kNoValue;         // GPUs only (NVML)
  double dataMs = kNoValue;         // assembling the batch: reading, decoding, augmenting
};

// A device as `started` and the dry-run plan list it.
struct PlannedDevice {
  QString id;
  QString name;
  int threads = 0;
  double load = kNoValue;
  long long batch = 0;  // samples per iteration on this device; 0 when not given
  QString host;         // the machine of an mpirun job's device, when the engine gives it
};

// The training plan: `netsmith-cli train P --dry-run --json` prints it; `started` carries it too.
struct TrainingPlan {
  QList<PlannedDevice> devices;
  QString lrPolicy;
  long long batchSize = 0;      // per device, as configured
  long long logicalBatch = 0;
  long long iterationsPerEpoch = 0;
  double baseLr = kNoValue;
  double effectiveLr = kNoValue;
  long long lrUpdateInterval = 0;
  long long warmupIterations = 0;
  bool deterministic = false;
  long long trainSamples = 0;  // 0 when not given
  long long maxEpoch = 0;
  QString precision;           // config.precision; empty when not given
  // Each loaded dataset, as the plan's `data` lists it: "training: 60,000 × 1×28×28, 47 MB on
  // disk, held in memory (bytes, 47 MB)".
  QStringList data;
  long long memoryBytesNeeded = 0;  // 0 when not given
  QStringList warnings;
};

struct StartedEvent {
  QString run;  // run folder
  QString project;
  TrainingPlan plan;
  long long maxEpoch = 0;
  long long trainSamples = 0;
  long long validationSamples = 0;
  long long parameters = 0;
  bool resumed = false;
};

struct IterationEvent {
  long long epoch = 0;      // 1-based
  long long iteration = 0;  // 1-based within the epoch
  long long iterationsPerEpoch = 0;
  long long globalIteration = 0;
  double loss = kNoValue;
  double lr = kNoValue;
  double samplesPerS = kNoValue;
  double etaS = kNoValue;
  QList<DeviceSample> devices;
};

// Data-parallel figures of an epoch (absent on engines without them).
struct EpochScaling {
  double samplesPerS = kNoValue;
  double communicationShare = kNoValue;
  double speedupEstimate = kNoValue;
  double dataShare = kNoValue;  // the part of the devices' step time spent assembling batches
};

struct EpochEvent {
  long long epoch = 0;
  double trainLoss = kNoValue;
  double validationLoss = kNoValue;
  double validationError = kNoValue;
  double seconds = kNoValue;
  double lr = kNoValue;
  std::optional<EpochScaling> scaling;
};

struct CheckpointEvent {
  long long epoch = 0;
  long long iteration = 0;
  QString path;
};

// `paused`, `resumed` and `resumed_from_checkpoint`.
struct ControlEvent {
  enum class Kind { Paused, Resumed, ResumedFromCheckpoint };
  Kind kind = Kind::Paused;
  long long epoch = 0;
  long long iteration = 0;
  QString path;
};

// `warning` and `error`.
struct MessageEvent {
  bool isError = false;
  QString message;
};

struct FinishedEvent {
  QString status;  // completed | stopped | failed
  QString run;
  long long epochs = 0;
  double bestValidationError = kNoValue;
  QString parametersSha256;
  QString message;  // when failed
  QString scalingVerdict;  // a multi-device run's verdict sentence (Note [Scaling verdict])
  QStringList gpuSummaries;  // "cuda:0: peak 71 °C, mean power 212 W", one per GPU
};

// The dry-run plan printed as one object with "event":"plan".
struct PlanEvent {
  TrainingPlan plan;
};

struct UnknownEvent {
  QString type;
};

using EngineEvent = std::variant<StartedEvent, IterationEvent, EpochEvent, CheckpointEvent, ControlEvent, MessageEvent,
                                 FinishedEvent, PlanEvent, UnknownEvent>;

// Parses one line of the stream. Returns nothing when the line is not a JSON object with a
// string "event" key (the caller logs such lines as engine output); `error` then says why.
// Never throws: a field of the wrong type reads as absent.
std::optional<EngineEvent> parseEngineEvent(const QByteArray& line, QString* error = nullptr);

// The event's "event" name, for logs.
QString eventName(const EngineEvent& event);

}  // namespace netsmith::gui

Q_DECLARE_METATYPE(netsmith::gui::EngineEvent)
