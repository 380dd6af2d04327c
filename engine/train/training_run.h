// TrainingRun: one training run (or resume) of runTraining() (trainer.h), inside the engine only.
// It is the coordinator: it loads the project, data and plan, starts the workers (a device
// context, a replica and a thread each) and runs the training loop, and it owns the parts that
// keep the rest, each with its one job and its own state:
//   RunFiles          run_files.{h,cpp}          the run folder: run.json and its lock, the disk it
//                                                 needs, events.jsonl, checkpoints' files, the
//                                                 learning curve, the parameter files, the result
//   TrainingPosition  training_position.{h,cpp}  what a checkpoint saves and restores: the position,
//                                                 the epoch's totals, the best error, the curve
//   RunFigures        run_figures.{h,cpp}        the per-job metrics: every worker's step figures,
//                                                 the iteration and epoch events, run.json's summary
//   JobSync           job_sync.{h,cpp}           the synchronization: the job's processes, who
//                                                 trains where, the communicators, agreements,
//                                                 pauses, replica checks, validation
//   EarlyStopping     early_stopping.{h,cpp}     the patience rule (Note [Early stopping])
// TrainingRun's own code:
//   trainer.cpp                    runTraining(), planRun() and the training loop (run())
//   training_run_setup.cpp         the project, data and plan, the job's devices and the workers
//                                  (prepare())
//   training_run_divergence.cpp    the report of a run that diverged (Note [Divergence])
//   training_run_checkpoints.cpp   a checkpoint of the workers' replicas and the position, and a
//                                  resume from one
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/devices/device_factory.h"
#include "engine/core/seconds_since.h"
#include "engine/data/dataset.h"
#include "engine/optim/lr_schedule.h"
#include "engine/project/graph.h"
#include "engine/train/divergence_guard.h"
#include "engine/train/events.h"
#include "engine/train/fault_injection.h"
#include "engine/train/job_sync.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/profiler.h"
#include "engine/train/replica.h"
#include "engine/train/run_figures.h"
#include "engine/train/run_files.h"
#include "engine/train/trainer.h"
#include "engine/train/training_position.h"
#include "engine/train/worker_pool.h"

namespace netsmith::training {

using Clock = std::chrono::steady_clock;

inline constexpr double kIterationEventSeconds = 0.05;  // at most ~20 iteration events per second

class TrainingRun {
 public:
  TrainingRun(const TrainOptions& options, EventBus& bus) : m_options(options), m_bus(bus), m_files(bus) {}
  ~TrainingRun();

  // Loads the project, data and plan; planOnly stops there (nothing written).
  void prepare(bool planOnly);
  TrainResult run();
  const TrainingPlan& plan() const { return m_plan; }
  int abandonedWorkers() const { return m_pool ? m_pool->abandonedWorkers() : 0; }
  bool mustAbandonProcess() const { return m_sync.joined() && m_sync.processes() > 1; }
  // Marks run.json "failed" with the reason, once the run has started in its folder (best
  // effort: on a full disk the folder keeps its last state, which resumes).
  void recordFailure(const std::string& message);

 private:
  void planData();
  void startWorkers();
  void restoreFromCheckpoint();
  void saveCheckpoint();
  void checkReplicas(const std::string& when);
  // Note [Weight averaging]: every worker exchanges its replica's average and weights (nothing when off).
  void exchangeAverages();
  using WorkerRunner = std::function<void(const WorkerPool::Task&)>;
  bool trainIteration(std::span<const int64_t> order, RunControl& control, std::string& pendingFailure,
                      const WorkerRunner& onWorkers);
  void trainEpochIterations(std::span<const int64_t> order, RunControl& control, std::string& pendingFailure);
  // Note [Worker team loop] (trainer.cpp): loop(onWorkers) on worker 0, the others stepping with it.
  template <typename Loop>
  void trainAsTeam(const Loop& loop);
  void emitIteration(int64_t iteration, double batchLoss, double lr);
  // Note [Divergence]: the leader's report of a divergence detected at the step of `logical`
  // (`epoch` and `iteration` 0-based, `globalIteration` 1-based; the diagnosis pass on worker 0,
  // through onWorkers); keeps it for fail() and returns the failure message
  // (training_run_divergence.cpp).
  std::string reportDivergence(const std::string& reason, std::span<const int64_t> logical, int64_t epoch,
                               int64_t iteration, int64_t globalIteration, double lr, const WorkerRunner& onWorkers);
  // Note [Gradient clipping]: after an epoch's steps (`order`: its sample order), the leader asks
  // worker 0's solver whether a step's gradient was not finite (a GPU skips such an update on the
  // device, and says so only when asked: one wait per epoch); the failure message when one was,
  // else empty.
  std::string checkSkippedGradients(std::span<const int64_t> order);
  TrainResult fail(TrainResult result, const std::string& message);

  const TrainOptions& m_options;
  EventBus& m_bus;
  RunFiles m_files;
  TrainingPosition m_position;
  DivergenceGuard m_divergence;  // Note [Divergence]: the leader's view of the loss
  std::optional<protocol::Divergence> m_divergenceReport;  // the leader's, once diverged
  std::string m_divergenceMessage;                         // the failure message it made
  int64_t m_sessionFirstGlobalIteration = 0;               // where this session's steps start

  Project m_project;
  std::unique_ptr<Graph> m_graph;
  TrainingPlan m_plan;
  std::map<std::string, std::string> m_deviceNames;
  std::unique_ptr<LearningRateSchedule> m_schedule;
  Dataset m_train;
  std::optional<Dataset> m_validation;
  FaultInjection m_fault;
  // What config.initial_parameters gave a new run (Note [Initial parameters]).
  std::optional<protocol::InitialParametersReport> m_initialReport;

  // Declared in this order so that the pool's threads end first, then the replicas, the devices
  // and last the communicators and the job (see ~TrainingRun).
  JobSync m_sync;
  std::vector<std::unique_ptr<DeviceContext>> m_contexts;
  std::vector<std::unique_ptr<Replica>> m_replicas;
  std::unique_ptr<WorkerPool> m_pool;

  RunFigures m_figures;  // the workers' figures, the events and summaries built from them
  std::unique_ptr<RunProfile> m_profile;  // --profile (Note [Layer profile]); destroyed before the replicas
};

}  // namespace netsmith::training
