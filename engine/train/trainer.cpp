// runTraining() and planRun() (trainer.h), and the training loop: TrainingRun::run(), which
// coordinates the run's parts (training_run.h lists them).
#include "engine/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <span>

#include "engine/core/error.h"
#include "engine/model/checkpoint.h"
#include "engine/train/early_stopping.h"
#include "engine/train/step_team.h"
#include "engine/train/training_run.h"

namespace fs = std::filesystem;

namespace netsmith {
namespace training {

void TrainingRun::exchangeAverages() {
  if (m_project.optimizer.emaDecay > 0)
    m_pool->runOnAll([&](int w) { m_replicas[static_cast<size_t>(w)]->exchangeAverage(); });
}

// `iteration`: iterations done in the position's epoch.
void TrainingRun::emitIteration(int64_t iteration, double batchLoss, double lr) {
  IterationPosition at;
  at.epoch = m_position.epoch();
  at.iteration = iteration;
  at.iterationsPerEpoch = m_position.iterationsPerEpoch();
  at.globalIteration = m_position.globalIteration();
  at.remainingIterations = m_position.remainingIterations(iteration);
  at.loss = batchLoss;
  at.lr = lr;
  m_bus.publish(m_figures.iterationEvent(at, m_replicas));
  m_figures.resetEventWindow();
}

// One training iteration at the position: the leader's decision, then every worker's step
// (onWorkers runs the task for each worker of this process) and the figures. False: stopped.
bool TrainingRun::trainIteration(std::span<const int64_t> order, RunControl& control, std::string& pendingFailure,
                                 const WorkerRunner& onWorkers) {
  const bool leader = m_sync.leader();
  const int64_t batch = m_plan.logicalBatch;
  const std::string next = m_sync.nextStep(control, pendingFailure);
  if (next == "pause") {
    const protocol::RunPosition position{m_position.epoch() + 1, m_position.iteration(), m_position.globalIteration()};
    if (leader) m_bus.publish(protocol::PausedEvent{position});
    // A stop while paused ends the pause without resuming: no `resumed` event.
    if (m_sync.waitWhilePaused(control)) return false;
    if (leader) m_bus.publish(protocol::ResumedEvent{position});
    m_figures.resetEventWindow();
  }
  if (next == "stop") return false;
  const auto stepStart = Clock::now();
  const int64_t epoch = m_position.epoch();
  const int64_t iteration = m_position.iteration();
  const std::span<const int64_t> logical(order.data() + iteration * batch, static_cast<size_t>(batch));
  const int64_t global = m_position.globalIteration();
  const double lr = m_schedule->at(global);
  onWorkers([&](int w) {
    const auto i = static_cast<size_t>(w);
    const std::string& id = m_sync.workers()[i].id;
    if (m_fault.at(id, global, FaultInjection::Kind::Throw))
      NS_THROW("injected worker exception at iteration {} (test hook NETSMITH_FAULT_INJECTION)", global + 1);
    if (m_fault.at(id, global, FaultInjection::Kind::Stall)) m_pool->sleepUnlessCancelled(1e6);
    if (m_fault.at(id, global, FaultInjection::Kind::DeviceFault)) {
      DeviceContext& device = *m_contexts[i];
      NS_CHECK(device.deviceAllocator(), "NETSMITH_FAULT_INJECTION fault: {} has no memory of its own to fault on", id);
      device.fill(reinterpret_cast<float*>(uintptr_t{16}), 1, 0.0f);  // queued: nothing is reported yet
    }
    const StepFigures step = m_replicas[i]->trainStep(m_train, logical, epoch, lr);
    if (m_fault.at(id, global, FaultInjection::Kind::Diverge)) {
      Tensor* first = m_replicas[i]->network().parameters().front().value;
      (*first)[0] += 1e-3f;
    }
    m_figures.workerStepped(i, step, *m_contexts[i]);
  });
  // Every process reports its workers' figures to the leader (Note [Iteration report]).
  const double lossSum = m_figures.gatherStep(m_sync.channel(), m_replicas);
  m_position.stepped();
  const double stepSeconds = secondsSince(stepStart);
  if (m_profile) m_profile->iterationDone(stepSeconds);
  m_figures.iterationTimed(stepSeconds);
  if (!leader) return true;
  // Note [Divergence]: the loss, or (CPU workers, at once) a non-finite gradient norm.
  std::optional<std::string> diverged = m_divergence.check(lossSum / static_cast<double>(batch));
  if (!diverged && m_replicas[0]->lastGradientNonFinite())
    diverged = format("the global gradient norm became {}", m_replicas[0]->gradientNorms().last);
  if (diverged) {
    pendingFailure =
        reportDivergence(*diverged, logical, epoch, iteration, m_position.globalIteration(), lr, onWorkers);
    return true;
  }
  m_position.addTrainingLoss(lossSum, batch);
  m_figures.trained(batch, stepSeconds);
  if (m_figures.secondsSinceEvent() >= kIterationEventSeconds || iteration + 1 == m_position.iterationsPerEpoch() ||
      m_options.learningRateRange)
    emitIteration(iteration + 1, lossSum / static_cast<double>(batch), lr);
  return true;
}

// Note [Solo worker loop]
// A job of one worker in one process (the usual CPU run) trains the epoch's iterations in one
// task on the worker's thread: the loop's own work between steps (decisions, figures, events)
// runs there too, so the worker thread never sleeps between steps and the trainer's thread
// waits once per epoch. A hand-off per step is two thread wake-ups; on a busy machine each one
// waits for a core, and meanwhile the worker's OpenMP team spins or falls asleep (--profile's
// time outside the step, MLP batch 64 on 2 threads at load average 3: 0.56 ms of a 6.7 ms
// iteration with a hand-off per step and a busy-seconds parallel region; 0.01 ms now; on a
// quieter machine 0.02-0.04 ms of a 1.7-2.4 ms iteration before). The step's own exceptions
// still end in the worker pool, as with a hand-off per step (a worker failure); those of the
// loop's own work (an events file that cannot be written, a failure agreed on) are carried
// back and rethrown on the trainer's thread, as before.
// Note [Worker team loop]
// Several workers in one process (GPUs, or CPU workers) go the way of Note [Solo worker loop]:
// the epoch's iterations run in one pool task. Worker 0 leads: it runs the loop and its step,
// and hands each step to the others through a StepTeam (two std::barrier phases a step, which
// spin briefly before they sleep) instead of the trainer's thread waking every worker and
// sleeping until all report back (a condition variable each way). The leader's time between
// steps is the loop's own work, which the others wait out at the barrier. A failure keeps its
// meaning: a worker whose step throws leaves the team (nobody waits for it) and its error goes to
// the pool, which reports it as before; the leader then ends the loop quietly. When the leader's
// own step throws, it reports the failure to the pool at once (the others are cancelled, their
// communicators aborted) and waits for their shares to end before it unwinds: their share runs
// on the loop's iteration, which must outlive them. The team is shared with the workers'
// frames, so an abandoned worker still blocked in it holds it.
template <typename Loop>
void TrainingRun::trainAsTeam(const Loop& loop) {
  auto shared = std::make_shared<StepTeam>(static_cast<int>(m_sync.workers().size()),
                                           [this](const std::exception_ptr& e) { m_pool->reportFailure(0, e); });
  std::exception_ptr loopFailure;
  m_pool->runOnAll([&, shared](int w) {
    const std::shared_ptr<StepTeam> team = shared;
    if (w != 0) {
      team->serve(w);
      return;
    }
    bool inStep = false;
    try {
      loop([&](const WorkerPool::Task& task) {
        inStep = true;
        team->step(task);
        inStep = false;
      });
    } catch (const StepTeam::TeammateFailed&) {
      // The teammate's error is the pool's to report.
    } catch (...) {
      team->finish();
      if (inStep) throw;  // the leader's own step failed
      loopFailure = std::current_exception();
      return;
    }
    team->finish();
  });
  if (loopFailure) std::rethrow_exception(loopFailure);
}

void TrainingRun::trainEpochIterations(std::span<const int64_t> order, RunControl& control,
                                       std::string& pendingFailure) {
  auto loop = [&](const WorkerRunner& onWorkers) {
    for (; m_position.epochUnfinished(); m_position.nextIteration())
      if (!trainIteration(order, control, pendingFailure, onWorkers)) break;
  };
  if (m_sync.processes() > 1) {
    loop([this](const WorkerPool::Task& task) { m_pool->runOnAll(task); });
    return;
  }
  if (m_sync.workers().size() > 1) {
    trainAsTeam(loop);
    return;
  }
  std::exception_ptr loopFailure;
  m_pool->runOnAll([&](int w) {
    bool inStep = false;
    try {
      loop([&](const WorkerPool::Task& task) {
        inStep = true;
        task(w);
        inStep = false;
      });
    } catch (...) {
      if (inStep) throw;  // the worker's failure
      loopFailure = std::current_exception();
    }
  });
  if (loopFailure) std::rethrow_exception(loopFailure);
}

TrainResult TrainingRun::fail(TrainResult result, const std::string& message) {
  // The divergence report goes with the message it made (not with a later, other failure).
  std::optional<protocol::Divergence> divergence;
  if (m_divergenceReport && m_divergenceMessage == message) divergence = m_divergenceReport;
  publishBestEffort(m_bus, protocol::ErrorEvent{message, divergence}.toJson());
  result.status = "failed";
  result.message = message;
  result.abandonedWorkers = abandonedWorkers();
  result.abandonProcess = mustAbandonProcess();
  recordFailure(message);
  protocol::FinishedEvent finished;
  finished.status = "failed";
  finished.message = message;
  finished.run = m_files.dir().string();
  finished.divergence = divergence;
  publishBestEffort(m_bus, finished.toJson());
  return result;
}

TrainResult TrainingRun::run() {
  TrainResult result;
  const fs::path& runDir = m_files.dir();
  result.runDir = runDir.string();
  const bool leader = m_sync.leader();
  if (m_position.alreadyCompleted()) {
    // Nothing to train, and nothing to rewrite: the folder already holds this run's result.
    result.status = "completed";
    exchangeAverages();  // Note [Weight averaging]: parameters.nsparams holds the average
    result.parametersSha256 = m_replicas[0]->fingerprint();
    result.bestValidationError = m_position.bestValidationError();
    const std::string message =
        format("the run in {} had already completed ({} of {} epochs): nothing to resume; parameters.nsparams is "
               "kept as it is",
               runDir.string(), m_position.epoch(), m_position.maxEpoch());
    if (leader) {
      protocol::FinishedEvent finished;
      finished.status = "completed";
      finished.alreadyCompleted = true;
      finished.message = message;
      finished.run = runDir.string();
      finished.epochs = static_cast<int64_t>(m_position.curve().size());
      finished.bestValidationError = m_position.bestValidationError();
      finished.parametersSha256 = result.parametersSha256;
      m_bus.publish(finished);
    }
    return result;
  }
  m_files.markStarted();  // a resume's failures are recorded from here on
  protocol::StartedEvent started;
  started.plan = m_plan;
  for (DevicePlan& d : started.plan.devices) d.name = m_deviceNames.count(d.id) ? m_deviceNames[d.id] : d.id;
  started.run = runDir.string();
  started.project = m_project.name;
  started.batchPerDevice = m_sync.workers()[0].batch;
  started.solver = m_project.optimizer.solver;
  started.validationSamples = m_validation ? m_validation->size : 0;
  started.parameters = m_graph->parameterCount;
  started.resumed = m_files.resumed();
  started.startEpoch = m_position.epoch() + 1;
  started.startIteration = m_position.iteration();
  if (!m_files.deviceChange().is_null())  // Note [Resume on other devices]
    started.deviceChange = protocol::DeviceChange::fromJson(m_files.deviceChange(), {"device change", ""});

  RunControl idle;
  RunControl& control = m_options.control ? *m_options.control : idle;
  const bool shuffle = m_project.dataset.shuffle;
  const uint64_t seed = m_project.config.seed;

  std::string pendingFailure;  // the leader's: every process fails at the next agreement
  m_sessionFirstGlobalIteration = m_position.globalIteration();
  // A resume replays the run's validations (Note [Early stopping]).
  EarlyStopping earlyStopping = earlyStoppingOf(m_project.config, m_files.settings());
  for (const CurveRow& r : m_position.curve())
    if (r.validationError) earlyStopping.observe(r.epoch, *r.validationError);
  try {
    if (leader) m_bus.publish(started);
    if (leader && m_initialReport) m_bus.publish(protocol::InitialParametersEvent{*m_initialReport});
    if (leader && earlyStopping.enabled() && !m_validation)
      m_bus.publish(protocol::WarningEvent{"config.early_stopping is on, but the project has no validation set: nothing "
                                           "is counted and the run trains all its epochs"});
    if (m_options.profile) m_profile = std::make_unique<RunProfile>(m_replicas, m_sync.workers());
    while (m_position.epochsLeft() && !earlyStopping.stopped()) {
      const int64_t epoch = m_position.epoch();
      const auto order = epochOrder(m_train.size, seed, epoch, shuffle);
      // A streamed dataset's prefetch threads read the epoch ahead of the workers (Note [Sample feed]).
      for (auto& replica : m_replicas) replica->announceEpoch(m_train, order, m_position.iteration());
      // Throughput figures start afresh each epoch, so validation time does not count as training.
      m_figures.startEpoch();
      m_position.startEpochClock();
      trainEpochIterations(order, control, pendingFailure);
      if (leader && pendingFailure.empty()) pendingFailure = checkSkippedGradients(order);
      m_sync.agreeOrThrow(pendingFailure);
      if (m_position.epochUnfinished()) {  // stopped
        m_position.stopEpochClock();
        saveCheckpoint();
        result.status = "stopped";
        break;
      }

      CurveRow row = m_position.epochRow(m_schedule->at(std::max<int64_t>(m_position.globalIteration() - 1, 0)));
      checkReplicas(format("after epoch {}", epoch + 1));
      const bool monitor = (epoch + 1) % m_project.config.monitorInterval == 0 || epoch + 1 == m_position.maxEpoch();
      if (m_validation && monitor) {
        // Note [Weight averaging]: the average is validated (and kept as best) in the weights' place;
        // they come back before anything else (a checkpoint, the next step) reads them. A failure in
        // between ends the run without a checkpoint of this state.
        exchangeAverages();
        const std::optional<BatchCounts> counts = m_sync.validate(*m_validation, m_replicas, *m_pool, control);
        if (!counts) {
          exchangeAverages();
          // Stopped during validation: the epoch's training is kept; a resume validates it again.
          m_position.stopEpochClock();
          saveCheckpoint();
          result.status = "stopped";
          break;
        }
        const BatchCounts& v = *counts;
        row.validationLoss = v.lossSum / static_cast<double>(std::max<int64_t>(v.samples, 1));
        if (v.counted > 0) {
          row.validationError = static_cast<double>(v.errors) / static_cast<double>(v.counted);
          // Hook (evaluation, issue 6): config.save_best keeps the best epoch's parameters beside
          // the last ones, for `evaluate/infer/export --parameters best` (engine/eval). Under
          // mpirun the leader writes it, as it writes everything else in the run folder.
          if (m_position.improvedBy(*row.validationError) && (m_project.config.saveBest || earlyStopping.enabled()) &&
              leader)
            m_files.writeBestParameters(m_replicas[0]->network(), m_project.name, row.epoch, *row.validationError);
        }
        exchangeAverages();
      }
      if (row.validationError) earlyStopping.observe(row.epoch, *row.validationError);
      row.seconds = m_position.epochSeconds();
      m_position.appendToCurve(row);
      if (leader) {
        m_bus.publish(protocol::EpochEvent{row.epoch, row.trainLoss, row.validationLoss, row.validationError, row.seconds,
                                           row.learningRate, m_figures.scalingSummary()});
        m_files.writeLearningCurve(m_position.curve());
      }
      m_position.nextEpoch();
      saveCheckpoint();
    }
  } catch (const Error& e) {
    return fail(result, e.what());
  }
  if (result.status.empty()) result.status = "completed";
  // Note [Weight averaging]: a completed run's result is the average (early stopping may then
  // replace it by the best epoch's, itself an average).
  try {
    if (result.status == "completed") exchangeAverages();
  } catch (const Error& e) {
    return fail(result, e.what());
  }
  Json earlyStopped;  // Note [Early stopping]: a normal end that keeps the best epoch's parameters
  try {
    if (result.status == "completed" && earlyStopping.stopped())
      earlyStopped = keepBestParameters(earlyStopping, runDir, m_files.record().runId(), m_replicas, *m_pool);
  } catch (const Error& e) {
    return fail(result, e.what());
  }

  result.parametersSha256 = m_replicas[0]->fingerprint();
  result.bestValidationError = m_position.bestValidationError();
  try {
    if (result.status == "completed" && leader)
      m_files.writeFinalParameters(*m_replicas[0], m_project.name, m_train.classNames);
  } catch (const Error& e) {
    return fail(result, e.what());  // the last checkpoint stays: a resume writes the parameters
  }
  protocol::FinishedEvent finished;
  finished.status = result.status;
  finished.run = runDir.string();
  finished.epochs = static_cast<int64_t>(m_position.curve().size());
  finished.bestValidationError = m_position.bestValidationError();
  finished.parametersSha256 = result.parametersSha256;
  if (!earlyStopped.is_null()) finished.earlyStopped = protocol::EarlyStop::fromJson(earlyStopped, {"early stop", ""});
  if (leader) {
    // run.json's result (RunFigures::runResult) holds the verdict and the GPUs' summaries in the
    // protocol's form.
    m_figures.recordFinalMemory(m_contexts);
    Json summary = m_figures.runResult(result.status, result.parametersSha256, runDir, m_sync.workers()[0].batch);
    // An early stop is kept too: a later resume then knows the run has nothing left to train.
    if (!earlyStopped.is_null()) summary["early_stopped"] = earlyStopped;
    m_files.writeResult(summary);
    const protocol::Where where{"run.json result", ""};
    if (summary.contains("scaling_verdict"))
      finished.scalingVerdict = protocol::ScalingVerdict::fromJson(summary["scaling_verdict"], where.child("scaling_verdict"));
    if (summary.contains("process_peak_memory_mb")) finished.processPeakMemoryMb = summary["process_peak_memory_mb"].get<int64_t>();
    if (summary.contains("gpus"))
      for (size_t g = 0; g < summary["gpus"].size(); ++g)
        finished.gpus.push_back(protocol::GpuSummary::fromJson(summary["gpus"][g], where.child("gpus").element(g)));
    if (m_profile) m_profile->publish(m_bus, runDir);
  }
  try {
    m_bus.publish(finished);
  } catch (const Error& e) {
    return fail(result, e.what());  // events.jsonl could not take its last line
  }
  return result;
}

}  // namespace training

using training::publishBestEffort;
using training::TrainingRun;

TrainResult runTraining(const TrainOptions& options) {
  EventBus localBus;
  EventBus& bus = options.events ? *options.events : localBus;
  TrainingRun run(options, bus);
  TrainResult result;
  try {
    run.prepare(false);
    return run.run();
  } catch (const std::exception& e) {
    result.status = "failed";
    result.message = e.what();
    result.abandonedWorkers = run.abandonedWorkers();
    // Under mpirun a process that failed before training (a refused run folder, on the leader
    // alone) must not wait in MPI_Finalize for ranks that wait for it.
    result.abandonProcess = run.mustAbandonProcess();
    publishBestEffort(bus, protocol::ErrorEvent{result.message}.toJson());
    run.recordFailure(result.message);
    protocol::FinishedEvent finished;
    finished.status = "failed";
    finished.message = result.message;
    publishBestEffort(bus, finished.toJson());
    return result;
  }
}

TrainingPlan planRun(const TrainOptions& options) {
  EventBus bus;
  TrainingRun run(options, bus);
  run.prepare(true);
  return run.plan();
}

}  // namespace netsmith
