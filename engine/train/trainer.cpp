#include "engine/train/trainer.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/device_factory.h"
#include "engine/comm/communicator.h"
#include "engine/comm/hierarchical_communicator.h"
#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/data/dataset.h"
#include "engine/data/label_check.h"
#include "engine/eval/parameters_file.h"
#include "engine/monitor/devices.h"
#include "engine/monitor/process_stats.h"
#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/project/device_name.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/checkpoint.h"
#include "engine/train/metrics.h"
#include "engine/train/fault_injection.h"
#include "engine/train/job_channel.h"
#include "engine/train/network.h"
#include "engine/train/openmp_pools.h"
#include "engine/train/replica.h"
#include "engine/train/profiler.h"
#include "engine/train/run_folder.h"
#include "engine/train/run_record.h"
#include "engine/train/scaling_verdict.h"
#include "engine/train/worker_pool.h"

namespace fs = std::filesystem;

namespace netsmith {
namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr int kCheckpointsKept = 3;
constexpr double kIterationEventSeconds = 0.05;  // at most ~20 iteration events per second
constexpr int64_t kValidationBatch = 256;

// A new run folder that does not exist yet: <folder>/<stem>.runs/<timestamp>[-N].
std::string newRunFolder(const std::string& projectPath) {
  const fs::path p(projectPath);
  const fs::path root = p.parent_path() / (p.stem().string() + ".runs");
  fs::path dir = root / timestampFolderName();
  for (int n = 2; fs::exists(dir); ++n) dir = root / (timestampFolderName() + "-" + std::to_string(n));
  return dir.string();
}

void truncateDataset(Dataset& d, int64_t samples) {
  if (samples <= 0 || samples >= d.size) return;
  d.size = samples;
  d.features.resize(samples * numel(d.sampleShape));
  d.labels.resize(samples * d.labelWidth);
}

struct CurveRow {
  int64_t epoch;
  double trainLoss;
  std::optional<double> validationLoss;
  std::optional<double> validationError;
  double seconds;
  double learningRate;
};

Json optionalJson(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// Figures of one worker, summed since the last iteration event (or over the epoch).
struct WorkerTotals {
  double compute = 0, sync = 0, wait = 0;
  int64_t iterations = 0;
  void add(const StepFigures& f) {
    compute += f.computeSeconds;
    sync += f.syncSeconds;
    wait += f.waitSeconds;
    ++iterations;
  }
};

// One worker's step as the processes report it to the leader: [compute, sync, wait, busy
// seconds, memory bytes, temperature °C, power W] (the last two null without sensors).
Json stepReport(const StepFigures& f, double busy, int64_t memoryBytes, const DeviceSensors& sensors) {
  return Json::array({f.computeSeconds, f.syncSeconds, f.waitSeconds, busy, memoryBytes,
                      optionalJson(sensors.temperatureC), optionalJson(sensors.powerW)});
}

std::optional<double> optionalNumber(const Json& v) {
  return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
}

// A GPU's sensors over the run, for the run summary.
struct SensorTotals {
  std::optional<double> maxTemperatureC;
  double powerSum = 0;
  int64_t powerSamples = 0;
  void add(const DeviceSensors& s) {
    if (s.temperatureC) maxTemperatureC = std::max(maxTemperatureC.value_or(*s.temperatureC), *s.temperatureC);
    if (s.powerW) {
      powerSum += *s.powerW;
      ++powerSamples;
    }
  }
};


// Publishes to every sink that still works: after a failure, a full disk must not hide the
// error from the sinks that can show it (EventBus gives every sink the event before rethrowing).
void publishBestEffort(EventBus& bus, const Json& event) {
  try {
    bus.publish(event);
  } catch (const Error&) {
  }
}

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
  void emitIteration(int64_t epoch, int64_t iteration, double batchLoss, double lr);
  Json deviceFigures();
  Json scalingSummary() const;
  Json runResult(const TrainResult& result);
  void resetEventWindow();
  TrainResult fail(TrainResult result, const std::string& message);

  const TrainOptions& m_options;
  EventBus& m_bus;
  std::unique_ptr<JsonLinesSink> m_eventsFile;  // the run's events.jsonl
  fs::path m_runDir;
  // run.json and the project snapshot; on the leader it holds the folder's lock (Note [One run
  // per folder]). Its settings are the overrides a resume keeps.
  RunRecord m_record;
  std::optional<std::string> m_resumeFrom;  // the leader's choice of checkpoint
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

  // This process's workers: this step's figures and busy seconds. Then, at the leader, for every
  // worker of the job: the totals since the last iteration event and over the epoch, busy
  // seconds now and at the last event, memory.
  std::vector<StepFigures> m_step;
  std::vector<double> m_localBusy;
  std::vector<DeviceSensors> m_localSensors;
  std::vector<double> m_busy;
  std::vector<DeviceSensors> m_sensors;
  std::vector<SensorTotals> m_sensorTotals;
  std::vector<WorkerTotals> m_runTotals;  // this session's training iterations, per worker
  double m_runTrainWall = 0.0;
  int64_t m_runTrainSamples = 0;
  std::vector<double> m_memoryBytes;
  std::vector<double> m_busyAtEvent;
  std::vector<WorkerTotals> m_sinceEvent;
  std::vector<WorkerTotals> m_epochTotals;
  double m_epochTrainWall = 0.0;  // seconds in training iterations this epoch (validation excluded)
  int64_t m_epochTrainSamples = 0;
  Clock::time_point m_lastEvent;
  int64_t m_samplesSinceEvent = 0;
  double m_secondsPerIteration = 0.0;  // moving average, for the ETA
  std::unique_ptr<RunProfile> m_profile;  // --profile (Note [Layer profile]); destroyed before the replicas
};

TrainingRun::~TrainingRun() {
  if (m_eventsFile) m_bus.remove(m_eventsFile.get());
  const bool abandoned = m_pool && m_pool->abandonedWorkers() > 0;
  m_pool.reset();
  if (abandoned) {
    // A hung worker may still touch its replica, device and communicator: leave them be; the
    // process exits soon (TrainResult::abandonedWorkers).
    for (auto& r : m_replicas) (void)r.release();
    for (auto& c : m_contexts) (void)c.release();
    (void)m_group.release();
    for (auto& c : m_jobComms) (void)c.release();
  }
}

// Note [One run per folder]: the plan says what the checkpoints need; a real run refuses to
// start without it, rather than fail when the disk fills.
void TrainingRun::planDisk(bool planOnly) {
  const int buffers = static_cast<int>(Optimizer::create(m_project.optimizer)->bufferNames().size());
  const DiskNeed need = diskNeed(m_graph->parameterCount, buffers, kCheckpointsKept);
  // A resume replaces the checkpoints and parameter files it finds.
  const uint64_t free = freeDiskBytes(m_runDir) + (m_resumed ? runFilesBytes(m_runDir) : 0);
  m_plan.checkpointBytes = need.checkpointBytes;
  m_plan.diskBytesNeeded = need.totalBytes;
  m_plan.diskBytesFree = free;
  m_plan.runFolder = m_runDir.string();
  if (free >= need.totalBytes) return;
  const std::string message = format(
      "{}: the run folder needs about {} of disk ({} per checkpoint: {} kept and 1 being written, and the parameter "
      "files) but only {} is free there: free some space, or train into a folder on another disk (--run-dir)",
      m_runDir.string(), humanBytes(need.totalBytes), humanBytes(need.checkpointBytes), kCheckpointsKept,
      humanBytes(free));
  if (planOnly) m_plan.warnings.push_back("the run would not start: " + message);
  else if (m_job->leader()) throw Error(message);
}

void TrainingRun::openRunFolder() {
  if (m_resumed) {
    fs::create_directories(m_runDir / "checkpoints");
  } else {
    Project snapshot = m_project;
    snapshot.parallel = m_userParallel;
    m_record.create(m_runDir, m_project.path, projectToPortableJson(snapshot).dump(2) + "\n");
  }
  m_eventsFile = JsonLinesSink::openFile((m_runDir / "events.jsonl").string());
  m_bus.add(m_eventsFile.get());
}

void TrainingRun::recordFailure(const std::string& message) {
  if (m_job && m_job->leader()) m_record.recordFailure(message);
}

void TrainingRun::prepare(bool planOnly) {
  if (!m_options.resumeRun.empty()) {
    m_runDir = fs::absolute(m_options.resumeRun);
    NS_CHECK(fs::is_directory(m_runDir), "{}: no such run folder", m_runDir.string());
    m_record.read(m_runDir);
    m_project = loadProject((m_runDir / "project.nsproj").string());
    m_resumed = true;
  } else {
    m_project = loadProject(m_options.projectPath);
    m_runDir = fs::absolute(m_options.runDir.empty() ? newRunFolder(m_project.path) : m_options.runDir);
    // At once, before the data loads; again under the lock when the folder is created.
    checkNoOtherRun(m_runDir, m_project.path);
    m_record.settings() = {{"project", m_project.path},
                  {"max_epoch", m_options.maxEpoch ? Json(*m_options.maxEpoch) : Json(nullptr)},
                  {"train_samples", m_options.trainSamples},
                  {"validation_samples", m_options.validationSamples},
                  {"devices", m_options.devices.empty() ? Json(nullptr) : Json(m_options.devices)}};
  }
  const Json& settings = m_record.settings();
  if (settings.contains("devices") && settings["devices"].is_array())
    m_project.parallel.devices = settings["devices"].get<std::vector<std::string>>();
  m_fault = FaultInjection::parse(m_options.faultInjection);
  m_job = JobChannel::forThisProcess(m_project.parallel.timeoutS);
  m_userParallel = m_project.parallel;  // the snapshot keeps the user's own lists
  joinJob();
  // A second process on the folder is refused before it loads anything.
  if (m_resumed && m_job->leader() && !planOnly)
    m_resumeFrom = m_record.claimForResume(m_project.config.seed, m_options.acceptEditedSettings);

  m_graph = std::make_unique<Graph>(buildGraph(m_project.network, OpRegistry::builtin()));
  const DatasetSpec& ds = m_project.dataset;
  // Note [OpenMP pools]: decoding uses OpenMP; off this thread, so its pool does not outlive it.
  runOnShortLivedThread([&] {
    m_train = loadDataSource(ds.training, ds.scale, ds.onError);
    if (ds.validation.present() && !planOnly) m_validation = loadDataSource(ds.validation, ds.scale, ds.onError);
  });
  // Every label against the loss now, not when it first reaches a batch (an epoch late for validation).
  const LabelRule labelRule = labelRuleOf(*m_graph);
  checkLabels(m_train, labelRule, ds.onError);
  if (m_validation) checkLabels(*m_validation, labelRule, ds.onError);
  truncateDataset(m_train, settings.value("train_samples", int64_t{0}));
  if (m_validation) truncateDataset(*m_validation, settings.value("validation_samples", int64_t{0}));
  const Shape& inShape = m_graph->input().outputShape;
  for (const Dataset* d : {&m_train, m_validation ? &*m_validation : nullptr}) {
    if (!d) continue;
    NS_CHECK(numel(d->sampleShape) == numel(inShape),
             "{}: samples have shape {} but Input '{}' expects {}: change the Input shape to {}", d->source,
             shapeToString(d->sampleShape), m_graph->input().id, shapeToString(inShape), shapeToString(d->sampleShape));
  }
  m_maxEpoch = settings.value("max_epoch", Json()).is_number() ? settings["max_epoch"].get<int64_t>()
                                                                 : m_project.config.maxEpoch;
  bool hasBatchNorm = false;
  for (const GraphNode& n : m_graph->nodes) hasBatchNorm = hasBatchNorm || n.schema->name == "BatchNormalization";
  // Under mpirun each process counts the cores it may use (mpirun binds it to some); the job has
  // that many per process (Note [Devices of an mpirun job] assumes alike processes).
  m_plan = planTraining(m_project, m_train.size, m_maxEpoch, availableCores() * m_job->processes(), hasBatchNorm);
  planDisk(planOnly);
  if (planOnly) return;

  if (m_job->leader()) {
    openRunFolder();
    for (const Dataset* d : {&m_train, m_validation ? &*m_validation : nullptr})
      if (d)
        for (const auto& w : d->warnings) m_bus.publish({{"event", "warning"}, {"message", w}});
    for (const auto& w : m_plan.warnings) m_bus.publish({{"event", "warning"}, {"message", w}});
  }
  m_iterationsPerEpoch = m_plan.iterationsPerEpoch;
  m_schedule = std::make_unique<LearningRateSchedule>(m_plan.optimizer, m_plan.effectiveLr, m_iterationsPerEpoch, m_maxEpoch);
  for (const DeviceInfo& info : discoverDevices()) m_deviceNames[info.id] = info.name;
  startWorkers();
  if (m_resumed) restoreFromCheckpoint();
  checkReplicas("at the start");
}

// Note [Devices of an mpirun job]
// Under mpirun the job's devices are named "rank<R>/<device>". parallel.devices may list them so
// (then each process trains the entries of its rank, and worker_load gives one load per device
// of the job), or list plain devices, which every process then trains (and worker_load is per
// process, repeated). The list is in rank order, so each process's devices are consecutive
// global ranks (Note [Reduction across processes]); the leader's list is the one all use.
void TrainingRun::joinJob() {
  auto& devices = m_project.parallel.devices;
  const bool ranked = std::any_of(devices.begin(), devices.end(), [](const std::string& d) { return d.find('/') != std::string::npos; });
  if (m_job->processes() == 1) {
    NS_CHECK(!ranked, "parallel.devices: \"{}\" names a process rank, which needs a run under mpirun", devices.front());
    return;
  }
  const int processes = m_job->processes();
  std::vector<std::string> job;
  if (ranked) {
    int previous = 0;
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string& d = devices[i];
      const auto slash = d.find('/');
      NS_CHECK(slash != std::string::npos && d.rfind("rank", 0) == 0,
               "parallel.devices[{}]: \"{}\": name every device of an mpirun job with its rank (rank0/cpu:0) or none", i, d);
      const int rank = std::stoi(d.substr(4, slash - 4));
      NS_CHECK(rank >= previous && rank < processes,
               "parallel.devices[{}]: \"{}\": ranks must be listed in order, from 0 to {} (this job has {} processes)", i,
               d, processes - 1, processes);
      previous = rank;
      job.push_back(d);
    }
  } else {
    std::vector<double> loads;
    for (int r = 0; r < processes; ++r) {
      for (size_t i = 0; i < devices.size(); ++i) {
        job.push_back(format("rank{}/{}", r, devices[i]));
        if (!m_project.parallel.workerLoad.empty()) loads.push_back(m_project.parallel.workerLoad[i]);
      }
    }
    m_project.parallel.workerLoad = loads;
  }
  for (int r = 0; r < processes; ++r) {
    const std::string prefix = format("rank{}/", r);
    NS_CHECK(std::any_of(job.begin(), job.end(), [&](const std::string& d) { return d.rfind(prefix, 0) == 0; }),
             "parallel.devices lists no device for rank {} ({}) of the {} processes mpirun started", r, m_job->host(r), processes);
  }
  devices = job;
}

// Every process learns whether the leader found a failure (given on the leader); all throw it.
void TrainingRun::agreeOrThrow(const std::string& failure) {
  const Json decision = m_job->agree(failure.empty() ? Json{{"do", "go"}} : Json{{"do", "fail"}, {"message", failure}});
  if (decision.value("do", "") == "fail") throw Error(decision.value("message", std::string("failed")));
}

// Returns true when the run is to stop. Under mpirun the leader repeats "pause" every second
// while paused, so that the others, waiting for its next word, do not take it for lost.
bool TrainingRun::waitWhilePaused(RunControl& control) {
  if (m_job->processes() == 1) return control.waitWhilePaused();
  if (!m_job->leader()) {
    Json decision;
    do {
      decision = m_job->agree({});
    } while (decision.value("do", "") == "pause");
    return decision.value("do", "") == "stop";
  }
  auto lastWord = Clock::now();
  while (control.paused() && !control.stopRequested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (secondsSince(lastWord) >= 1.0) {
      m_job->agree({{"do", "pause"}});
      lastWord = Clock::now();
    }
  }
  const bool stop = control.stopRequested();
  m_job->agree({{"do", stop ? "stop" : "resume"}});
  return stop;
}

void TrainingRun::startWorkers() {
  const std::string mine = m_job->processes() > 1 ? format("rank{}/", m_job->processRank()) : "";
  for (const DevicePlan& d : m_plan.devices) {
    if (d.batch == 0) continue;
    if (d.id.rfind(mine, 0) == 0) {
      if (m_workers.empty()) m_firstJobWorker = static_cast<int>(m_jobWorkers.size());
      m_workers.push_back(d);
    }
    m_jobWorkers.push_back(d);
  }
  NS_CHECK(!m_workers.empty(), "rank {} ({}) has no device with a load > 0: give it one, or start fewer processes",
           m_job->processRank(), m_job->host(m_job->processRank()));
  const int n = static_cast<int>(m_workers.size());
  std::vector<std::string> ids;
  for (const auto& w : m_workers) ids.push_back(w.id);
  const double timeout = m_project.parallel.timeoutS;
  // Contexts and the communicator group come from the devices' kind (engine/backend/device_factory.h).
  const DeviceKind& kind = deviceKindOf(localDeviceId(ids.at(0)));
  for (const auto& id : ids)
    NS_CHECK(&deviceKindOf(localDeviceId(id)) == &kind, "parallel.devices: {} and {} are of different kinds; train on "
             "devices of one kind (all cpu:N or all cuda:N)", ids[0], id);
  // Across processes the leader worker waits for the other processes up to the timeout while
  // this process's other workers wait for it: they must wait longer, so that the lost process
  // is the one named.
  const bool acrossProcesses = m_job->processes() > 1;
  NS_CHECK(!acrossProcesses || kind.kind == "cpu",
           "parallel.devices: {} under mpirun: training GPUs across processes (NCCL set up over MPI) is not in this "
           "version; under mpirun use CPU workers, or train the GPUs of one machine in one process",
           ids[0]);
  std::vector<std::string> groupIds = ids;
  if (kind.kind != "cpu")  // other kinds open their devices by their local ids
    for (auto& id : groupIds) id = localDeviceId(id);
  m_group = kind.makeGroup(groupIds, acrossProcesses ? 2 * timeout + 5 : timeout);
  std::vector<std::string> jobIds;
  for (const auto& w : m_jobWorkers) jobIds.push_back(w.id);
  if (MpiJob* mpi = m_job->mpi())
    for (int w = 0; w < n; ++w)
      m_jobComms.push_back(std::make_unique<HierarchicalCommunicator>(m_group->communicator(w), *mpi, jobIds,
                                                                      m_firstJobWorker, timeout));
  m_contexts.resize(static_cast<size_t>(n));
  m_replicas.resize(static_cast<size_t>(n));
  const auto total = m_jobWorkers.size();
  m_step.assign(static_cast<size_t>(n), {});
  m_localBusy.assign(static_cast<size_t>(n), 0.0);
  m_localSensors.assign(static_cast<size_t>(n), {});
  m_busy.assign(total, 0.0);
  m_sensors.assign(total, {});
  m_sensorTotals.assign(total, {});
  m_runTotals.assign(total, {});
  m_busyAtEvent.assign(total, 0.0);
  m_memoryBytes.assign(total, 0.0);
  m_sinceEvent.assign(total, {});
  m_epochTotals.assign(total, {});
  CommunicatorGroup* group = m_group.get();
  // A worker that fails aborts its communicator, so the others stop at their next collective
  // instead of waiting out the timeout. A worker still busy a while after the timeout is hung.
  m_pool = std::make_unique<WorkerPool>(ids, timeout + 10.0, [group](int w, const std::string& reason) {
    group->communicator(w).abort(reason);
  });
  m_pool->runOnAll([&](int w) {
    const auto i = static_cast<size_t>(w);
    DevicePlan local = m_workers[i];
    local.id = localDeviceId(local.id);
    m_contexts[i] = kind.makeContext(local, m_plan, m_project);
    if (kind.attachWorker) kind.attachWorker(*group, w, *m_contexts[i]);
    Communicator& comm = m_jobComms.empty() ? group->communicator(w) : static_cast<Communicator&>(*m_jobComms[i]);
    m_replicas[i] = std::make_unique<Replica>(*m_graph, m_plan, m_workers[i], *m_contexts[i], comm, m_project.config.seed);
    m_localBusy[i] = m_contexts[i]->busySeconds();
  });
}

void TrainingRun::checkReplicas(const std::string& when) {
  if (m_jobWorkers.size() < 2) return;
  std::vector<std::string> prints(m_replicas.size());
  m_pool->runOnAll([&](int w) { prints[static_cast<size_t>(w)] = m_replicas[static_cast<size_t>(w)]->fingerprint(); });
  std::vector<std::string> all;
  for (const Json& report : m_job->gather(Json(prints)))
    for (const Json& p : report) all.push_back(p.get<std::string>());
  std::string failure;
  for (size_t w = 1; w < all.size() && failure.empty(); ++w) {
    if (all[w] != all[0])
      failure = format("the replicas differ {}: {}'s parameters (fingerprint {}) are not {}'s ({}); every device must "
                       "apply the same update, so this is a bug in a kernel or in the all-reduce",
                       when, m_jobWorkers[w].id, all[w].substr(0, 12), m_jobWorkers[0].id, all[0].substr(0, 12));
  }
  agreeOrThrow(failure);
}

void TrainingRun::restoreFromCheckpoint() {
  // The leader chose (claimForResume: only this run's checkpoints); under mpirun every process
  // reads the same file (the run folder is on a file system all nodes see).
  std::optional<std::string> newest = m_job->leader() ? m_resumeFrom : std::nullopt;
  const Json chosen = m_job->agree(newest ? Json(*newest) : Json(nullptr));
  if (chosen.is_null()) return;  // stopped before the first checkpoint: start over in the same folder
  newest = chosen.get<std::string>();
  const CheckpointData data = readCheckpoint(*newest);
  // Check against one replica on this thread, then let every worker copy into its own.
  {
    std::map<std::string, Tensor*> byName;
    for (auto& p : m_replicas[0]->network().parameters()) byName["param/" + p.name] = p.value;
    for (const auto& [name, tensor] : data.tensors) {
      if (name.rfind("param/", 0) != 0) continue;
      const auto it = byName.find(name);
      NS_CHECK(it != byName.end(), "{}: holds {} which the project's network does not have", *newest, name);
      NS_CHECK(it->second->shape() == tensor.shape(), "{}: {} has shape {}, the network expects {}", *newest, name,
               shapeToString(tensor.shape()), shapeToString(it->second->shape()));
      byName.erase(it);
    }
    NS_CHECK(byName.empty(), "{}: lacks {}", *newest, byName.begin()->first);
  }
  const Json& m = data.meta;
  const int64_t steps = m.at("optimizer_steps").get<int64_t>();
  m_pool->runOnAll([&](int w) {
    Replica& r = *m_replicas[static_cast<size_t>(w)];
    std::map<std::string, Tensor*> byName;
    for (auto& p : r.network().parameters()) byName["param/" + p.name] = p.value;
    Optimizer::StateList optimizerState;
    for (const auto& [name, tensor] : data.tensors) {
      if (name.rfind("param/", 0) == 0) byName.at(name)->copyFrom(tensor);
      else if (name.rfind("optim/", 0) == 0) optimizerState.emplace_back(name.substr(6), &tensor);
    }
    r.optimizer().restoreState(optimizerState, steps);
  });
  m_epoch = m.at("epoch").get<int64_t>();
  m_iteration = m.at("iteration").get<int64_t>();
  m_globalIteration = m.at("global_iteration").get<int64_t>();
  m_epochLossSum = m.at("epoch_loss_sum").get<double>();
  m_epochSamples = m.at("epoch_samples").get<int64_t>();
  m_epochSeconds = m.value("epoch_seconds", 0.0);
  if (!m.at("best_validation_error").is_null()) m_bestValidationError = m["best_validation_error"].get<double>();
  // Resumed on another number of devices (or processes): the logical batch and everything
  // counted in iterations follow the new plan; the position keeps the samples already trained.
  const int64_t oldBatch = m.value("logical_batch", m_plan.logicalBatch);
  if (oldBatch != m_plan.logicalBatch) {
    const int64_t oldIteration = m_iteration;
    m_iteration = std::min(m_iteration * oldBatch / m_plan.logicalBatch, m_iterationsPerEpoch);
    m_globalIteration = m_epoch * m_iterationsPerEpoch + m_iteration;
    if (m_job->leader())
      m_bus.publish({{"event", "warning"},
                     {"message", format("resuming on {} device(s): the logical batch is now {} samples (it was {}), with {} "
                                        "iterations per epoch and a learning rate of {}; the run continues at iteration {} "
                                        "of epoch {} (was iteration {} of the old batch)",
                                        m_jobWorkers.size(), m_plan.logicalBatch, oldBatch, m_iterationsPerEpoch,
                                        m_plan.effectiveLr, m_iteration, m_epoch + 1, oldIteration)}});
  } else {
    m_checkpointedAt = {m_epoch, m_iteration, m_globalIteration};
  }
  // A run that had ended: its parameters.nsparams stays as it is if it holds these weights.
  bool completed = false;
  if (m_job->leader() && m_epoch >= m_maxEpoch) {
    try {
      const Json params = readCheckpointMeta((m_runDir / "parameters.nsparams").string());
      completed = params.value("parameters_sha256", std::string()) == m.value("parameters_sha256", std::string("?")) &&
                  params.value("run_id", std::string()) == m_record.runId();
    } catch (const Error&) {
      // None, or damaged: the resume writes it.
    }
  }
  m_alreadyCompleted = m_job->agree(Json(completed)).get<bool>();
  m_curve.clear();
  for (const Json& r : m.at("curve")) {
    CurveRow row{r.at(0).get<int64_t>(), r.at(1).get<double>(), std::nullopt, std::nullopt, r.at(4).get<double>(),
                 r.at(5).get<double>()};
    if (!r.at(2).is_null()) row.validationLoss = r[2].get<double>();
    if (!r.at(3).is_null()) row.validationError = r[3].get<double>();
    m_curve.push_back(row);
  }
  // The leader alone writes the run folder and the events: two ranks renaming the same
  // learning_curve.csv.tmp made one of them fail the resume.
  if (!m_job->leader()) return;
  writeLearningCurve();
  m_bus.publish({{"event", "resumed_from_checkpoint"}, {"path", *newest}, {"epoch", m_epoch + 1}, {"iteration", m_iteration}});
}

void TrainingRun::saveCheckpoint(int64_t epoch, int64_t iteration) {
  // Every process decides alike (the same positions), before the collective below.
  const std::array<int64_t, 3> position{epoch, iteration, m_globalIteration};
  if (position == m_checkpointedAt) return;
  m_checkpointedAt = position;
  checkReplicas(format("at the checkpoint of epoch {}, iteration {}", epoch + (iteration > 0 ? 1 : 0), iteration));
  if (!m_job->leader()) return;
  Replica& replica = *m_replicas[0];
  CheckpointData data;
  Json curve = Json::array();
  for (const auto& r : m_curve)
    curve.push_back({r.epoch, r.trainLoss, optionalJson(r.validationLoss), optionalJson(r.validationError), r.seconds,
                     r.learningRate});
  data.meta = {{"format", "netsmith-checkpoint"},
               {"epoch", epoch},
               {"iteration", iteration},
               {"global_iteration", m_globalIteration},
               {"epoch_loss_sum", m_epochLossSum},
               {"epoch_samples", m_epochSamples},
               {"epoch_seconds", m_epochSeconds},
               {"best_validation_error", optionalJson(m_bestValidationError)},
               {"optimizer_steps", replica.optimizer().steps()},
               {"seed", m_project.config.seed},
               {"logical_batch", m_plan.logicalBatch},
               {"curve", curve},
               {"parameters_sha256", replica.fingerprint()},
               // Note [One run per folder]: whose checkpoint this is, and what it was trained with.
               {"run_id", m_record.runId()},
               {"project_sha256", m_record.projectSha256()},
               {"project", m_record.projectJson()}};
  for (auto& p : replica.network().parameters()) data.tensors.emplace_back("param/" + p.name, p.value->clone());
  for (auto& [name, tensor] : replica.optimizer().stateTensors()) data.tensors.emplace_back("optim/" + name, tensor->clone());
  char padded[64];
  std::snprintf(padded, sizeof padded, "e%04lld_i%06lld.ckpt", static_cast<long long>(epoch), static_cast<long long>(iteration));
  const fs::path path = m_runDir / "checkpoints" / padded;
  writeCheckpoint(path.string(), data);
  m_bus.publish({{"event", "checkpoint"}, {"epoch", epoch}, {"iteration", iteration},
                 {"global_iteration", m_globalIteration}, {"path", fs::relative(path, m_runDir).string()}});

  pruneCheckpoints(m_runDir / "checkpoints", m_record.runId(), path, kCheckpointsKept);
}

// Every worker evaluates a contiguous share of the blocks; the blocks' counts are added in block
// order, so the result does not depend on the number of devices. A stop during validation ends
// it within a block: nullopt, and every process learns it from the leader.
std::optional<BatchCounts> TrainingRun::validate(RunControl& control) {
  const Dataset& v = *m_validation;
  const int64_t blocks = (v.size + kValidationBatch - 1) / kValidationBatch;
  const auto n = static_cast<int64_t>(m_jobWorkers.size());
  std::vector<std::vector<BatchCounts>> perWorker(m_replicas.size());
  std::atomic<bool> interrupted{false};
  m_pool->runOnAll([&](int w) {
    const int64_t g = m_firstJobWorker + w;
    const int64_t first = blocks * g / n;
    const int64_t last = blocks * (g + 1) / n;
    auto& counts = perWorker[static_cast<size_t>(w)];
    counts = m_replicas[static_cast<size_t>(w)]->evaluateBlocks(
        v, std::min(first * kValidationBatch, v.size), std::min(last * kValidationBatch, v.size), kValidationBatch,
        [&control] { return control.stopRequested(); });
    if (static_cast<int64_t>(counts.size()) < last - first) interrupted = true;
  });
  Json report = {{"stopped", interrupted.load()}, {"counts", Json::array()}};
  for (const auto& counts : perWorker)
    for (const auto& c : counts) report["counts"].push_back({c.lossSum, c.errors, c.counted, c.samples});
  BatchCounts total;
  bool stopped = control.stopRequested();
  for (const Json& fromProcess : m_job->gather(report)) {
    stopped = stopped || fromProcess.value("stopped", false);
    for (const Json& c : fromProcess.at("counts"))
      total.add({c[0].get<double>(), c[1].get<int64_t>(), c[2].get<int64_t>(), c[3].get<int64_t>()});
  }
  if (m_job->agree(Json(stopped)).get<bool>()) return std::nullopt;
  return total;
}

void TrainingRun::writeLearningCurve() {
  std::string csv = "epoch,train_loss,validation_loss,validation_error,seconds,learning_rate\n";
  auto opt = [](const std::optional<double>& v) { return v ? format("{}", *v) : std::string(); };
  for (const auto& r : m_curve)
    csv += format("{},{},{},{},{},{}\n", r.epoch, r.trainLoss, opt(r.validationLoss), opt(r.validationError), r.seconds,
                  r.learningRate);
  writeTextAtomically(m_runDir / "learning_curve.csv", csv);
}

void TrainingRun::writeFinalParameters() {
  Replica& replica = *m_replicas[0];
  CheckpointData data;
  data.meta = {{"format", "netsmith-parameters"},
               {"project", m_project.name},
               {"run_id", m_record.runId()},
               {"parameters_sha256", replica.fingerprint()}};
  for (auto& p : replica.network().parameters()) data.tensors.emplace_back(p.name, p.value->clone());
  writeCheckpoint((m_runDir / "parameters.nsparams").string(), data);
}

void TrainingRun::resetEventWindow() {
  m_lastEvent = Clock::now();
  m_samplesSinceEvent = 0;
  m_sinceEvent.assign(m_sinceEvent.size(), {});
  m_busyAtEvent = m_busy;
}

Json TrainingRun::deviceFigures() {
  const double wall = secondsSince(m_lastEvent);
  Json devices = Json::array();
  for (size_t w = 0; w < m_jobWorkers.size(); ++w) {
    const WorkerTotals& t = m_sinceEvent[w];
    const double per = t.iterations ? 1000.0 / static_cast<double>(t.iterations) : 0.0;
    const double busy = m_busy[w] - m_busyAtEvent[w];
    const double utilization = wall > 0 ? std::clamp(busy / (wall * m_jobWorkers[w].threads), 0.0, 1.0) : 0.0;
    Json d = {{"id", m_jobWorkers[w].id},
              {"compute_ms", t.compute * per},
              {"sync_ms", t.sync * per},
              {"overlap_ms", std::max(0.0, t.sync - t.wait) * per},
              {"wait_ms", t.wait * per},
              {"utilization", utilization},
              {"memory_mb", m_memoryBytes[w] / (1024.0 * 1024.0)}};
    if (m_sensors[w].temperatureC) d["temperature_c"] = *m_sensors[w].temperatureC;
    if (m_sensors[w].powerW) d["power_w"] = *m_sensors[w].powerW;
    devices.push_back(std::move(d));
  }
  return devices;
}

// Note [Scaling summary]: per epoch, from the workers' own clocks. communication_share is the
// part of the workers' step time spent blocked on the all-reduce (communication not hidden
// behind backward, plus waiting for the slowest device); speedup_estimate is the workers'
// summed compute time over the epoch's training wall time: how much faster the devices were
// together than one of them alone doing all the work at the same per-sample speed.
Json TrainingRun::scalingSummary() const {
  double compute = 0, wait = 0, sync = 0;
  for (const auto& t : m_epochTotals) {
    compute += t.compute;
    wait += t.wait;
    sync += t.sync;
  }
  const double wall = m_epochTrainWall;
  return {{"devices", m_jobWorkers.size()},
          {"samples_per_s", wall > 0 ? static_cast<double>(m_epochTrainSamples) / wall : 0.0},
          {"communication_share", compute + wait > 0 ? wait / (compute + wait) : 0.0},
          {"sync_seconds", sync},
          {"speedup_estimate", wall > 0 ? compute / wall : 0.0}};
}

// The run's summary in run.json ("result"; Note [Scaling verdict] reads it as a baseline): speed,
// the scaling verdict of a multi-device run, and each GPU's peak temperature and mean power.
Json TrainingRun::runResult(const TrainResult& result) {
  const int devices = static_cast<int>(m_jobWorkers.size());
  const bool gpu = m_jobWorkers[0].id.rfind("cuda:", 0) == 0;
  const int64_t batchPerDevice = m_workers[0].batch;
  const double samplesPerS = m_runTrainWall > 0 ? static_cast<double>(m_runTrainSamples) / m_runTrainWall : 0.0;
  Json r = {{"status", result.status},
            {"devices", devices},
            {"backend", gpu ? "cuda" : "cpu"},
            {"batch_per_device", batchPerDevice},
            {"samples_per_s", samplesPerS},
            {"parameters_sha256", result.parametersSha256}};
  if (devices > 1 && m_runTrainSamples > 0) {
    ScalingInput in;
    in.devices = devices;
    in.gpu = gpu;
    in.samplesPerS = samplesPerS;
    in.wallSeconds = m_runTrainWall;
    for (const WorkerTotals& t : m_runTotals) {
      in.computeSeconds += t.compute;
      in.syncSeconds += t.sync;
      in.waitSeconds += t.wait;
    }
    in.singleDeviceSamplesPerS =
        lastSingleDeviceSamplesPerS(m_runDir.parent_path(), m_runDir, r["backend"], batchPerDevice, &in.baselineRun);
    r["scaling_verdict"] = scalingVerdict(in);
  }
  Json gpus = Json::array();
  for (size_t w = 0; w < m_sensorTotals.size(); ++w) {
    const SensorTotals& s = m_sensorTotals[w];
    if (!s.maxTemperatureC && !s.powerSamples) continue;
    gpus.push_back({{"id", m_jobWorkers[w].id},
                    {"max_temperature_c", optionalJson(s.maxTemperatureC)},
                    {"mean_power_w", s.powerSamples ? Json(s.powerSum / static_cast<double>(s.powerSamples)) : Json(nullptr)}});
  }
  if (!gpus.empty()) r["gpus"] = gpus;
  try {
    m_record.writeResult(r);
  } catch (const Error& e) {
    publishBestEffort(m_bus, {{"event", "warning"}, {"message", format("the run summary was not saved: {}", e.what())}});
  }
  return r;
}

void TrainingRun::emitIteration(int64_t epoch, int64_t iteration, double batchLoss, double lr) {
  const double wall = secondsSince(m_lastEvent);
  const int64_t remaining = (m_maxEpoch - epoch) * m_iterationsPerEpoch - iteration;
  Json e = {{"event", "iteration"},
            {"epoch", epoch + 1},
            {"iteration", iteration},
            {"iterations_per_epoch", m_iterationsPerEpoch},
            {"global_iteration", m_globalIteration},
            {"loss", batchLoss},
            {"lr", lr},
            {"samples_per_s", wall > 0 ? static_cast<double>(m_samplesSinceEvent) / wall : 0.0},
            {"eta_s", m_secondsPerIteration * static_cast<double>(remaining)},
            {"process_memory_mb", processResidentMb()}};
  e["devices"] = deviceFigures();
  m_bus.publish(e);
  resetEventWindow();
}

TrainResult TrainingRun::fail(TrainResult result, const std::string& message) {
  publishBestEffort(m_bus, {{"event", "error"}, {"message", message}});
  result.status = "failed";
  result.message = message;
  result.abandonedWorkers = abandonedWorkers();
  result.abandonProcess = mustAbandonProcess();
  recordFailure(message);
  publishBestEffort(m_bus, {{"event", "finished"}, {"status", "failed"}, {"message", message}, {"run", m_runDir.string()}});
  return result;
}

TrainResult TrainingRun::run() {
  TrainResult result;
  result.runDir = m_runDir.string();
  if (m_alreadyCompleted) {
    // Nothing to train, and nothing to rewrite: the folder already holds this run's result.
    result.status = "completed";
    result.parametersSha256 = m_replicas[0]->fingerprint();
    result.bestValidationError = m_bestValidationError;
    const std::string message =
        format("the run in {} had already completed ({} of {} epochs): nothing to resume; parameters.nsparams is "
               "kept as it is",
               m_runDir.string(), m_epoch, m_maxEpoch);
    if (m_job->leader())
      m_bus.publish({{"event", "finished"},
                     {"status", "completed"},
                     {"already_completed", true},
                     {"message", message},
                     {"run", m_runDir.string()},
                     {"epochs", static_cast<int64_t>(m_curve.size())},
                     {"best_validation_error", optionalJson(m_bestValidationError)},
                     {"parameters_sha256", result.parametersSha256}});
    return result;
  }
  m_record.markStarted();  // a resume's failures are recorded from here on
  Json started = m_plan.toJson();
  Json devices = Json::array();
  for (const DevicePlan& d : m_plan.devices)
    devices.push_back({{"id", d.id}, {"name", m_deviceNames.count(d.id) ? m_deviceNames[d.id] : d.id},
                       {"threads", d.threads}, {"load", d.load}, {"batch", d.batch}, {"idle", d.batch == 0}});
  started.update({{"event", "started"},
                  {"format_version", kEventsFormatVersion},
                  {"run", m_runDir.string()},
                  {"project", m_project.name},
                  {"devices", devices},
                  {"batch_per_device", m_workers[0].batch},
                  {"solver", m_project.optimizer.solver},
                  {"validation_samples", m_validation ? m_validation->size : 0},
                  {"parameters", m_graph->parameterCount},
                  {"resumed", m_resumed},
                  {"start_epoch", m_epoch + 1},
                  {"start_iteration", m_iteration}});

  RunControl idle;
  RunControl& control = m_options.control ? *m_options.control : idle;
  const bool shuffle = m_project.dataset.shuffle;
  const uint64_t seed = m_project.config.seed;
  const int64_t batch = m_plan.logicalBatch;

  const bool leader = m_job->leader();
  std::string pendingFailure;  // the leader's: every process fails at the next agreement
  try {
    if (leader) m_bus.publish(started);
    if (m_options.profile) m_profile = std::make_unique<RunProfile>(m_replicas, m_workers);
    for (; m_epoch < m_maxEpoch; ++m_epoch) {
      const auto order = epochOrder(m_train.size, seed, m_epoch, shuffle);
      // Throughput figures start afresh each epoch, so validation time does not count as training.
      resetEventWindow();
      m_epochTotals.assign(m_epochTotals.size(), {});
      m_epochTrainWall = 0;
      m_epochTrainSamples = 0;
      auto epochStart = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_epochSeconds));
      for (; m_iteration < m_iterationsPerEpoch; ++m_iteration) {
        // The leader decides, every process follows: they stay in step (Note [Bucket order]).
        std::string next = "step";
        if (leader) next = !pendingFailure.empty() ? "fail" : control.paused() ? "pause" : control.stopRequested() ? "stop" : "step";
        const Json decision = m_job->agree({{"do", next}, {"message", pendingFailure}});
        next = decision.value("do", "");
        if (next == "fail") throw Error(decision.value("message", std::string()));
        if (next == "pause") {
          const Json position = {{"epoch", m_epoch + 1}, {"iteration", m_iteration}, {"global_iteration", m_globalIteration}};
          Json paused = position;
          paused["event"] = "paused";
          if (leader) m_bus.publish(paused);
          // A stop while paused ends the pause without resuming: no `resumed` event.
          if (waitWhilePaused(control)) break;
          Json resumed = position;
          resumed["event"] = "resumed";
          if (leader) m_bus.publish(resumed);
          resetEventWindow();
        }
        if (next == "stop") break;
        const auto stepStart = Clock::now();
        const std::span<const int64_t> logical(order.data() + m_iteration * batch, static_cast<size_t>(batch));
        const double lr = m_schedule->at(m_globalIteration);
        const int64_t global = m_globalIteration;
        m_pool->runOnAll([&](int w) {
          const auto i = static_cast<size_t>(w);
          const std::string& id = m_workers[i].id;
          if (m_fault.at(id, global, FaultInjection::Kind::Throw))
            NS_THROW("injected worker exception at iteration {} (test hook NETSMITH_FAULT_INJECTION)", global + 1);
          if (m_fault.at(id, global, FaultInjection::Kind::Stall)) m_pool->sleepUnlessCancelled(1e6);
          m_step[i] = m_replicas[i]->trainStep(m_train, logical, m_epoch, lr);
          if (m_fault.at(id, global, FaultInjection::Kind::Diverge)) {
            Tensor* first = m_replicas[i]->network().parameters().front().value;
            (*first)[0] += 1e-3f;
          }
          m_localBusy[i] = m_contexts[i]->busySeconds();
          m_localSensors[i] = m_contexts[i]->sensors();
        });
        // Every process reports its workers' figures to the leader, in global rank order.
        Json report = {{"loss", 0.0}, {"workers", Json::array()}};
        double localLoss = 0.0;
        for (size_t w = 0; w < m_step.size(); ++w) {
          localLoss += m_step[w].lossSum;
          report["workers"].push_back(stepReport(m_step[w], m_localBusy[w], m_replicas[w]->memoryBytes(), m_localSensors[w]));
        }
        report["loss"] = localLoss;
        const std::vector<Json> reports = m_job->gather(report);
        ++m_globalIteration;
        const double stepSeconds = secondsSince(stepStart);
        if (m_profile) m_profile->iterationDone(stepSeconds);
        m_secondsPerIteration = m_secondsPerIteration == 0 ? stepSeconds : 0.98 * m_secondsPerIteration + 0.02 * stepSeconds;
        if (!leader) continue;
        double lossSum = 0.0;
        size_t g = 0;
        for (const Json& r : reports) {
          lossSum += r.at("loss").get<double>();
          for (const Json& f : r.at("workers")) {
            const StepFigures figures{0.0, f[0].get<double>(), f[1].get<double>(), f[2].get<double>()};
            m_sinceEvent[g].add(figures);
            m_epochTotals[g].add(figures);
            m_runTotals[g].add(figures);
            m_busy[g] = f[3].get<double>();
            m_memoryBytes[g] = f[4].get<double>();
            m_sensors[g] = {optionalNumber(f[5]), optionalNumber(f[6])};
            m_sensorTotals[g].add(m_sensors[g]);
            ++g;
          }
        }
        if (!std::isfinite(lossSum)) {
          pendingFailure = format(
              "the training loss became {} at epoch {}, iteration {} (global iteration {}): lower the learning rate (now "
              "{}) or check the dataset scale; no checkpoint was written for this state",
              lossSum, m_epoch + 1, m_iteration + 1, m_globalIteration, lr);
          continue;
        }
        m_epochLossSum += lossSum;
        m_epochSamples += batch;
        m_epochTrainWall += stepSeconds;
        m_epochTrainSamples += batch;
        m_runTrainWall += stepSeconds;
        m_runTrainSamples += batch;
        m_samplesSinceEvent += batch;
        if (secondsSince(m_lastEvent) >= kIterationEventSeconds || m_iteration + 1 == m_iterationsPerEpoch)
          emitIteration(m_epoch, m_iteration + 1, lossSum / static_cast<double>(batch), lr);
      }
      agreeOrThrow(pendingFailure);
      if (m_iteration < m_iterationsPerEpoch) {  // stopped
        m_epochSeconds = secondsSince(epochStart);
        saveCheckpoint(m_epoch, m_iteration);
        result.status = "stopped";
        break;
      }

      CurveRow row{m_epoch + 1, m_epochLossSum / static_cast<double>(std::max<int64_t>(m_epochSamples, 1)), std::nullopt,
                   std::nullopt, 0.0, m_schedule->at(std::max<int64_t>(m_globalIteration - 1, 0))};
      checkReplicas(format("after epoch {}", m_epoch + 1));
      const bool monitor = (m_epoch + 1) % m_project.config.monitorInterval == 0 || m_epoch + 1 == m_maxEpoch;
      if (m_validation && monitor) {
        const std::optional<BatchCounts> counts = validate(control);
        if (!counts) {
          // Stopped during validation: the epoch's training is kept; a resume validates it again.
          m_epochSeconds = secondsSince(epochStart);
          saveCheckpoint(m_epoch, m_iteration);
          result.status = "stopped";
          break;
        }
        const BatchCounts& v = *counts;
        row.validationLoss = v.lossSum / static_cast<double>(std::max<int64_t>(v.samples, 1));
        if (v.counted > 0) {
          row.validationError = static_cast<double>(v.errors) / static_cast<double>(v.counted);
          if (!m_bestValidationError || *row.validationError < *m_bestValidationError) {
            m_bestValidationError = row.validationError;
            // Hook (evaluation, issue 6): config.save_best keeps the best epoch's parameters beside
            // the last ones, for `evaluate/infer/export --parameters best` (engine/eval). Under
            // mpirun the leader writes it, as it writes everything else in the run folder.
            if (m_project.config.saveBest && leader)
              writeParametersFile((m_runDir / "best.nsparams").string(), m_replicas[0]->network(),
                                  {{"project", m_project.name}, {"run_id", m_record.runId()}, {"epoch", row.epoch},
                                   {"validation_error", *row.validationError}});
          }
        }
      }
      row.seconds = secondsSince(epochStart);
      m_curve.push_back(row);
      if (leader) {
        m_bus.publish({{"event", "epoch"},
                       {"epoch", row.epoch},
                       {"train_loss", row.trainLoss},
                       {"validation_loss", optionalJson(row.validationLoss)},
                       {"validation_error", optionalJson(row.validationError)},
                       {"seconds", row.seconds},
                       {"lr", row.learningRate},
                       {"scaling", scalingSummary()}});
        writeLearningCurve();
      }
      m_iteration = 0;
      m_epochLossSum = 0.0;
      m_epochSamples = 0;
      m_epochSeconds = 0.0;
      saveCheckpoint(m_epoch + 1, 0);
    }
  } catch (const Error& e) {
    return fail(result, e.what());
  }
  if (result.status.empty()) result.status = "completed";

  result.parametersSha256 = m_replicas[0]->fingerprint();
  result.bestValidationError = m_bestValidationError;
  try {
    if (result.status == "completed" && leader) writeFinalParameters();
  } catch (const Error& e) {
    return fail(result, e.what());  // the last checkpoint stays: a resume writes the parameters
  }
  Json finished = {{"event", "finished"},
                   {"status", result.status},
                   {"run", m_runDir.string()},
                   {"epochs", static_cast<int64_t>(m_curve.size())},
                   {"best_validation_error", optionalJson(m_bestValidationError)},
                   {"parameters_sha256", result.parametersSha256}};
  if (leader) {
    const Json summary = runResult(result);
    if (summary.contains("scaling_verdict")) finished["scaling_verdict"] = summary["scaling_verdict"];
    if (summary.contains("gpus")) finished["gpus"] = summary["gpus"];
    if (m_profile) m_profile->publish(m_bus, m_runDir);
  }
  try {
    m_bus.publish(finished);
  } catch (const Error& e) {
    return fail(result, e.what());  // events.jsonl could not take its last line
  }
  return result;
}

}  // namespace

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
    publishBestEffort(bus, {{"event", "error"}, {"message", result.message}});
    run.recordFailure(result.message);
    publishBestEffort(bus, {{"event", "finished"}, {"status", "failed"}, {"message", result.message}});
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
