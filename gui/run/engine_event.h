// The engine's events stream (docs/events.md, format version 1) as the GUI uses it, read from
// `netsmith-cli train --events -` and from a run folder's events.jsonl. The stream's types, and
// its one reader, are engine/protocol's (Note [Protocol reading rules]); this is their thin Qt
// adaptor: the same events with Qt strings and lists, a number that is not defined as NaN.
// The training plan is engine/protocol's TrainingPlan itself.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <cmath>
#include <limits>
#include <optional>
#include <variant>

#include "engine/protocol/events.h"

namespace netsmith::gui {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
inline bool hasValue(double v) { return !std::isnan(v); }

// The plan as the engine describes it (`train --dry-run --json`, and inside `started`).
using TrainingPlan = protocol::TrainingPlan;
using PlannedDevice = protocol::PlannedDevice;

// A dataset of the plan for people: "training: 60,000 × 1×28×28, 47 MB on disk, held in memory
// (bytes, 47 MB)".
QString describeDataSet(const protocol::PlannedDataSet& set);

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

struct StartedEvent {
  QString run;  // run folder
  QString project;
  TrainingPlan plan;
  long long maxEpoch = 0;
  long long trainSamples = 0;
  long long validationSamples = 0;
  long long parameters = 0;
  bool resumed = false;
  QString deviceChange;  // a resume on other devices: what changed, in a sentence (else empty)
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
  double elapsedS = kNoValue;  // since the engine process began training (kNoValue: an older engine)
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
  QString deviceChange;  // resumed_from_checkpoint on other devices: what changed
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
  // Note [Divergence]: the block where a diverged run first went wrong (empty: none named) and
  // what to tell about it there (the pass, what was seen, the iteration and the advice).
  QString divergedBlock;
  QString divergedReason;
};

// The dry-run plan printed as one object with "event":"plan".
struct PlanEvent {
  TrainingPlan plan;
};

// An event the GUI does not show (a newer engine's, or `profile`).
// `initial_parameters` (Note [Initial parameters]): what the run took from its initial
// parameters, as the lines the Training page's log shows (the summary, then a line per layer
// that was not simply loaded and per unused entry).
struct InitialParametersEvent {
  QStringList lines;
  long long loaded = 0, fresh = 0, reinitialized = 0, unused = 0;
};

struct UnknownEvent {
  QString type;
};

using EngineEvent = std::variant<StartedEvent, IterationEvent, EpochEvent, CheckpointEvent, ControlEvent, MessageEvent,
                                 FinishedEvent, PlanEvent, InitialParametersEvent, UnknownEvent>;

// The GUI's view of a protocol event.
EngineEvent toEngineEvent(const protocol::Event& event);

// One line of the stream: the event, or why it is none (protocol::readEventLine).
struct EngineLine {
  protocol::EventLine::Kind kind = protocol::EventLine::Kind::NotJson;
  std::optional<EngineEvent> event;
  QString error;  // a damaged event: which field, and what was expected
};
EngineLine readEngineLine(const QByteArray& line);

// Parses one line of the stream. Returns nothing when the line is not an event, or an event
// whose fields do not match the protocol; `error` then says why. Never throws.
std::optional<EngineEvent> parseEngineEvent(const QByteArray& line, QString* error = nullptr);

// The event's "event" name, for logs.
QString eventName(const EngineEvent& event);

}  // namespace netsmith::gui

Q_DECLARE_METATYPE(netsmith::gui::EngineEvent)
