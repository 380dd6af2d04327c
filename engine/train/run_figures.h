// RunFigures: the per-job metrics of a training run (one part of TrainingRun, training_run.h):
// its per-iteration bookkeeping, which trainer.cpp's loop calls: each worker's step figures,
// their way to the leader, the totals since the last iteration event, over the epoch and over the
// session, and the events and summaries built from them (the `iteration` event, the epoch's
// scaling summary, run.json's result).
//
// Note [Iteration report]
// Under mpirun every process reports its workers' step to the leader as JSON (JobChannel::gather).
// In a single process there is no one to send it to, so the leader reads its workers' figures
// directly: no JSON is built or parsed per iteration, and a replica's memory (which lists the
// optimizer's state) is read only when an iteration event is written. The figures, and so the
// events, are the same either way.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/device_context.h"
#include "engine/project/project.h"
#include "engine/protocol/events.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/replica.h"

namespace netsmith {

class JobChannel;

// Figures of one worker, summed since the last iteration event (or over the epoch, or the run).
struct WorkerTotals {
  double compute = 0, sync = 0, wait = 0, data = 0;
  int64_t iterations = 0;
  void add(const StepFigures& f) {
    compute += f.computeSeconds;
    data += f.dataSeconds;
    sync += f.syncSeconds;
    wait += f.waitSeconds;
    ++iterations;
  }
};

// A GPU's sensors over the run, for the run summary.
struct SensorTotals {
  std::optional<double> maxTemperatureC;
  std::optional<int64_t> peakMemoryMb;
  double powerSum = 0;
  int64_t powerSamples = 0;
  void add(const DeviceSensors& s);
};

Json optionalJson(const std::optional<double>& v);

// Where the run stands, for an iteration event.
struct IterationPosition {
  int64_t epoch = 0;       // 0-based
  int64_t iteration = 0;   // iterations done in the epoch
  int64_t iterationsPerEpoch = 0;
  int64_t globalIteration = 0;
  int64_t remainingIterations = 0;
  double loss = 0;         // of the last batch, per sample
  double lr = 0;
};

class RunFigures {
 public:
  using Clock = std::chrono::steady_clock;

  // This process's workers (localWorkers of them, global ranks firstJobWorker...) among the
  // job's active devices.
  void start(size_t localWorkers, const std::vector<DevicePlan>& jobWorkers);

  // On worker i's thread: its step and its device's busy seconds and sensors now.
  void workerStepped(size_t i, const StepFigures& step, const DeviceContext& device);
  // On worker i's thread, before the first step: the device's busy seconds.
  void workerStarted(size_t i, const DeviceContext& device);

  // Every process, after the workers' step: the leader gets every worker's figures (Note
  // [Iteration report]) and the job's loss sum; the others get 0.
  double gatherStep(JobChannel& job, const std::vector<std::unique_ptr<Replica>>& replicas);
  // Every process: one iteration took stepSeconds (the ETA's moving average).
  void iterationTimed(double stepSeconds);
  // Leader: the iteration trained `samples` (its loss was finite).
  void trained(int64_t samples, double stepSeconds);

  // Throughput figures start afresh: at an epoch's start (validation time does not count as
  // training), after a pause, after each iteration event.
  void resetEventWindow();
  void startEpoch();
  double secondsSinceEvent() const;

  // Leader: the `iteration` event of the window; the caller publishes it, then resets the window.
  protocol::IterationEvent iterationEvent(const IterationPosition& at, const std::vector<std::unique_ptr<Replica>>& replicas);
  // Note [Scaling summary]: the epoch event's `scaling`.
  protocol::EpochScaling scalingSummary() const;
  // run.json's result (Note [Scaling verdict] reads it as a baseline): speed, the scaling verdict
  // of a multi-device run, and each GPU's peak temperature and mean power.
  // At the run's end: each local GPU's memory in use now joins its peak (the device pool keeps
  // what it took, so this is the run's most, validation's blocks included, which the sampler may
  // not have seen yet). One process only; under mpirun the peaks are the iteration reports'.
  void recordFinalMemory(const std::vector<std::unique_ptr<DeviceContext>>& contexts);
  Json runResult(const std::string& status, const std::string& parametersSha256, const std::filesystem::path& runDir,
                 int64_t batchPerDevice) const;

 private:
  std::vector<protocol::DeviceFigures> deviceFigures(double wall) const;
  void add(size_t g, const StepFigures& figures, double busy, const DeviceSensors& sensors);

  std::vector<DevicePlan> m_jobWorkers;
  // This process's workers: this step's figures, busy seconds and sensors.
  std::vector<StepFigures> m_step;
  std::vector<double> m_localBusy;
  std::vector<DeviceSensors> m_localSensors;
  bool m_localMemory = false;  // single process: memory read at events (Note [Iteration report])
  // At the leader, for every worker of the job: busy seconds now and at the last event, sensors,
  // memory, and the totals since the last iteration event, over the epoch and the session.
  std::vector<double> m_busy;
  std::vector<double> m_busyAtEvent;
  std::vector<DeviceSensors> m_sensors;
  std::vector<SensorTotals> m_sensorTotals;
  std::vector<double> m_memoryBytes;
  std::vector<WorkerTotals> m_sinceEvent;
  std::vector<WorkerTotals> m_epochTotals;
  std::vector<WorkerTotals> m_runTotals;  // this session's training iterations, per worker
  double m_epochTrainWall = 0.0;  // seconds in training iterations this epoch (validation excluded)
  int64_t m_epochTrainSamples = 0;
  double m_runTrainWall = 0.0;
  int64_t m_runTrainSamples = 0;
  Clock::time_point m_lastEvent = Clock::now();
  Clock::time_point m_started = Clock::now();  // start(): the iteration events' elapsed_s
  int64_t m_samplesSinceEvent = 0;
  double m_secondsPerIteration = 0.0;  // moving average, for the ETA
};

}  // namespace netsmith
