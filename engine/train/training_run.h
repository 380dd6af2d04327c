// TrainingRun: one training run (or resume) of runTraining() (trainer.h), inside the engine only.
// Its parts live in one file each:
//   trainer.cpp                  runTraining(), planRun() and the training loop (run())
//   training_run_setup.cpp       the project, data, plan, run folder, job and workers (prepare())
//   training_run_collectives.cpp what every process of the job does together: agreements,
//                                pauses, replica checks, validation
//   training_run_files.cpp       checkpoints (write, restore), learning_curve.csv, the final
//                                parameters and run.json's result
//   run_figures.{h,cpp}          the per-iteration figures, reports and events (RunFigures)
#pragma once

#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/backend/device_factory.h"
#include "engine/comm/communicator.h"
#include "engine/comm/hierarchical_communicator.h"
#include "engine/data/dataset.h"
#include "engine/optim/lr_schedule.h"
#include "engine/project/graph.h"
#include "engine/protocol/learning_curve.h"
#include "engine/train/events.h"
#include "engine/train/fault_injection.h"
#include "engine/train/job_channel.h"
#include "engine/train/metrics.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/profiler.h"
#include "engine/train/replica.h"
#include "engine/train/run_figures.h"
#include "engine/train/run_record.h"
#include "engine/train/trainer.h"
#include "engine/train/worker_pool.h"

namespace netsmith::training {

using Clock = std::chrono::steady_clock;
inline double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

inline constexpr int kCheckpointsKept = 3;
inline constexpr double kIterationEventSeconds = 0.05;  // at most ~20 iteration events per second
inline constexpr int64_t kValidationBatch = 256;

// A row of learning_curve.csv and of the checkpoints' curve (engine/protocol/learning_curve.h).
using CurveRow = protocol::LearningCurveRow;

// Publishes to every sink that still works: after a failure, a full disk must not hide the
// error from the sinks that can show it (EventBus gives every sink the event before rethrowing).
void publishBestEffort(EventBus& bus, const Json& event);

class TrainingRun {
 public:
  TrainingRun(const TrainOptions& options, EventBus& bus) : m_options(options), m_bus(bus), m_record(bus) {}
  ~TrainingRun();

  // Loads the project, data and plan; planOnly stops there (nothing written).
  void prepare(bool planOnly);
  TrainResult run();
  const TrainingPlan& plan() const { return m_plan; }
  int abandonedWorkers() const { return m_pool ? m_pool->abandonedWorkers() : 0; }
  bool mustAbandonProcess() const { return m_job && m_job->processes() > 1; }
  // Marks run.json "failed" with the reason, once the run has started in its folder (best
  // effort: on a full disk the folder keeps its last state, which resumes).
  void recordFailure(const std::string& message);

 private:
  void planDisk(bool planOnly);
  void planData();
  void openRunFolder();
  void startWorkers();
  void restoreFromCheckpoint();
  void saveCheckpoint(int64_t epoch, int64_t iteration);
  void checkReplicas(const std::string& when);
  void joinJob();
  void agreeOrThrow(const std::string& failure);
  bool waitWhilePaused(RunControl& control);
  std::optional<BatchCounts> validate(RunControl& control);
  void writeLearningCurve();
  void writeFinalParameters();
  using WorkerRunner = std::function<void(const WorkerPool::Task&)>;
  bool trainIteration(std::span<const int64_t> order, RunControl& control, std::string& pendingFailure,
                      const WorkerRunner& onWorkers);
  void trainEpochIterations(std::span<const int64_t> order, RunControl& control, std::string& pendingFailure);
  void emitIteration(int64_t epoch, int64_t iteration, double batchLoss, double lr);
  Json runResult(const TrainResult& result);
  TrainResult fail(TrainResult result, const std::string& message);

  const TrainOptions& m_options;
  EventBus& m_bus;
  std::unique_ptr<JsonLinesSink> m_eventsFile;  // the run's events.jsonl
  std::filesystem::path m_runDir;
  // run.json and the project snapshot; on the leader it holds the folder's lock (Note [One run
  // per folder]). Its settings are the overrides a resume keeps.
  RunRecord m_record;
  std::optional<std::string> m_resumeFrom;  // the leader's choice of checkpoint
  // run.json's "training" for this session, and what a resume changed against the previous one
  // (null: nothing): Note [Resume on other devices] (training_run_setup.cpp).
  Json m_training;
  Json m_deviceChange;
  bool m_alreadyCompleted = false;  // a resume of a run that had finished: nothing to do
  Project m_project;
  std::unique_ptr<Graph> m_graph;
  TrainingPlan m_plan;
  std::unique_ptr<JobChannel> m_job;  // the processes of this run (one, or mpirun's)
  ParallelConfig m_userParallel;      // as the project says, before joinJob() names every device
  std::vector<DevicePlan> m_workers;  // this process's active devices, one worker each
  std::vector<DevicePlan> m_jobWorkers;  // every active device of the job, by global rank
  int m_firstJobWorker = 0;           // the global rank of m_workers[0]
  std::map<std::string, std::string> m_deviceNames;
  std::unique_ptr<LearningRateSchedule> m_schedule;
  Dataset m_train;
  std::optional<Dataset> m_validation;
  FaultInjection m_fault;

  // Declared in this order so that the pool's threads end first (see ~TrainingRun).
  std::unique_ptr<CommunicatorGroup> m_group;
  std::vector<std::unique_ptr<DeviceContext>> m_contexts;
  std::vector<std::unique_ptr<HierarchicalCommunicator>> m_jobComms;  // under mpirun
  std::vector<std::unique_ptr<Replica>> m_replicas;
  std::unique_ptr<WorkerPool> m_pool;

  int64_t m_iterationsPerEpoch = 0;
  int64_t m_maxEpoch = 0;
  // Position: the next iteration to run.
  int64_t m_epoch = 0;
  int64_t m_iteration = 0;
  int64_t m_globalIteration = 0;
  double m_epochLossSum = 0.0;
  int64_t m_epochSamples = 0;
  double m_epochSeconds = 0.0;
  std::optional<double> m_bestValidationError;
  std::vector<CurveRow> m_curve;
  bool m_resumed = false;
  // (epoch, iteration, global iteration) of the last checkpoint written or restored: a stop right
  // after it (at an epoch's start, or at once after a resume) has nothing new to write.
  std::array<int64_t, 3> m_checkpointedAt{-1, -1, -1};

  RunFigures m_figures;  // the workers' figures, the events and summaries built from them
  std::unique_ptr<RunProfile> m_profile;  // --profile (Note [Layer profile]); destroyed before the replicas
};

}  // namespace netsmith::training
