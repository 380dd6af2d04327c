// TrainingRun's set-up (training_run.h): the project, data and plan, the run folder, the job's
// devices and the workers.
#include <algorithm>
#include <filesystem>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/data/augment.h"
#include "engine/core/text_files.h"
#include "engine/data/label_check.h"
#include "engine/monitor/devices.h"
#include "engine/optim/optimizer.h"
#include "engine/project/device_name.h"
#include "engine/project/project_io.h"
#include "engine/train/checkpoint.h"
#include "engine/train/openmp_pools.h"
#include "engine/train/run_folder.h"
#include "engine/train/training_run.h"

namespace fs = std::filesystem;

namespace netsmith::training {

namespace {

// A new run folder that does not exist yet: <folder>/<stem>.runs/<timestamp>[-N].
std::string newRunFolder(const std::string& projectPath) {
  const fs::path p(projectPath);
  const fs::path root = p.parent_path() / (p.stem().string() + ".runs");
  fs::path dir = root / timestampFolderName();
  for (int n = 2; fs::exists(dir); ++n) dir = root / (timestampFolderName() + "-" + std::to_string(n));
  return dir.string();
}

void truncateDataset(Dataset& d, int64_t samples) { d.keepFirst(samples); }

// Note [Resume on other devices]
// A run's logical batch belongs to the run, not to its devices. run.json's "training" records
// the active devices with their slices, the logical batch, the learning-rate scale and the
// batch_size and lr_policy they came from. A resume on other devices (--devices, or under mpirun
// another number of processes) shares that same logical batch among the devices it has, in
// proportion to their loads (unevenly when they do not divide it), and keeps the learning rate;
// so the schedule (counted in iterations of that batch), the checkpoint's position and the sample
// order (epochOrder of the seed and the epoch, cut into logical batches) stay as they were, and
// only the per-device slices change. In reproducible mode, slices that are equal power-of-two
// numbers of chunks give the weights of the run never moved (Note [Reproducible training]).
// What changed is said in `started` and `resumed_from_checkpoint` ("device_change") and kept in
// run.json's "device_changes". An accepted edit of config.batch_size or parallel.lr_policy
// replans the batch from the edited project; a folder of an older version has no "training",
// and there the logical batch follows the new devices (restoreFromCheckpoint warns).
std::optional<KeptBatch> keptBatchOf(const Json& settings, const Project& project) {
  const auto t = settings.find("training");
  if (t == settings.end() || !t->is_object()) return std::nullopt;
  const auto batch = t->find("logical_batch"), scale = t->find("lr_scale");
  if (batch == t->end() || !batch->is_number_integer() || scale == t->end() || !scale->is_number()) return std::nullopt;
  if (t->value("batch_size", int64_t{0}) != project.config.batchSize ||
      t->value("lr_policy", std::string()) != project.parallel.lrPolicy)
    return std::nullopt;
  return KeptBatch{batch->get<int64_t>(), scale->get<double>()};
}

Json trainingRecord(const TrainingPlan& plan) {
  Json devices = Json::array();
  for (const DevicePlan& d : plan.devices)
    if (d.batch > 0) devices.push_back({{"id", d.id}, {"batch", d.batch}});
  return {{"devices", devices},           {"logical_batch", plan.logicalBatch}, {"lr_scale", plan.lrScale},
          {"effective_lr", plan.effectiveLr}, {"batch_size", plan.batchSize},   {"lr_policy", plan.lrPolicy}};
}

// "cpu:0,cpu:1" of a training record's devices.
std::string deviceIds(const Json& devices) {
  std::string s;
  for (const Json& d : devices) s += (s.empty() ? "" : ",") + d.value("id", std::string());
  return s;
}
// "32" when every device takes as many, else "22/21/21".
std::string deviceBatches(const Json& devices) {
  std::string s;
  bool equal = true;
  for (const Json& d : devices) {
    s += (s.empty() ? "" : "/") + std::to_string(d.value("batch", int64_t{0}));
    equal = equal && d.value("batch", int64_t{0}) == devices.front().value("batch", int64_t{0});
  }
  return equal && !devices.empty() ? std::to_string(devices.front().value("batch", int64_t{0})) : s;
}

// What a resume changes against the run's previous session (null: nothing, or not known).
Json describeDeviceChange(const Json& before, const Json& now, const std::string& note) {
  if (!before.is_object() || !before.contains("devices") || before["devices"] == now["devices"]) return nullptr;
  const int64_t logical = now["logical_batch"].get<int64_t>();
  const int64_t was = before.value("logical_batch", logical);
  const double lr = now["effective_lr"].get<double>();
  const double wasLr = before.value("effective_lr", lr);
  const std::string message = format(
      "Resumed on {} (was {}): per-device batch {} (was {}), logical batch {}, learning rate {}{}",
      deviceIds(now["devices"]), deviceIds(before["devices"]), deviceBatches(now["devices"]),
      deviceBatches(before["devices"]), logical == was ? format("{} unchanged", logical) : format("{} (was {})", logical, was),
      lr == wasLr ? format("{} unchanged", lr) : format("{} (was {})", lr, wasLr), note);
  return {{"message", message},
          {"devices", now["devices"]},
          {"previous_devices", before["devices"]},
          {"logical_batch", logical},
          {"previous_logical_batch", was},
          {"effective_lr", lr},
          {"previous_effective_lr", wasLr}};
}

}  // namespace

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
    Json change = m_deviceChange;
    if (!change.is_null() && m_resumeFrom) {
      const Json meta = peekCheckpointMeta(*m_resumeFrom);
      change["epoch"] = meta.value("epoch", int64_t{0}) + 1;
      change["iteration"] = meta.value("iteration", int64_t{0});
    }
    m_record.recordTraining(m_training, change, m_options.devices);
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

// Note [Sample storage]: the plan says where each dataset is kept and what the run will hold in
// memory: per worker its parameters, gradients and optimizer state and a batch's activations
// (every node's output and its gradient; kernels' own workspaces come on top), the datasets' own
// memory, and each streamed dataset's read-ahead (two batches per worker).
void TrainingRun::planData() {
  const int buffers = static_cast<int>(Optimizer::create(m_project.optimizer)->bufferNames().size());
  int64_t activations = 0;
  for (const GraphNode& n : m_graph->nodes) activations += numel(n.outputShape);
  int64_t workers = 0, largestBatch = 0;
  for (const DevicePlan& d : m_plan.devices)
    if (d.batch > 0) ++workers, largestBatch = std::max(largestBatch, d.batch);
  m_plan.modelBytesPerWorker = m_graph->parameterCount * 4 * (2 + buffers);
  m_plan.activationBytesPerWorker = activations * largestBatch * 4 * 2;
  int64_t total = workers * (m_plan.modelBytesPerWorker + m_plan.activationBytesPerWorker);
  m_plan.data.clear();
  for (const auto& [role, d] : {std::pair{"training", &m_train}, std::pair{"validation", m_validation ? &*m_validation : nullptr}}) {
    if (!d) continue;
    TrainingPlan::DataSet set;
    set.role = role;
    set.samples = d->size;
    set.shape = d->sampleShape;
    set.diskBytes = d->diskBytes;
    set.memoryBytes = d->memoryBytes();
    set.storage = d->file ? "streamed" : d->holdsBytes() ? "bytes" : "float32";
    set.source = d->file ? d->file->path() : d->source;
    total += set.memoryBytes + (d->file ? workers * 2 * largestBatch * d->sampleNumel() : 0);
    m_plan.data.push_back(set);
  }
  m_plan.memoryBytesNeeded = total;
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
                  {"early_stopping", m_options.earlyStopping ? Json(*m_options.earlyStopping) : Json(nullptr)},
                  {"train_samples", m_options.trainSamples},
                  {"validation_samples", m_options.validationSamples},
                  {"devices", m_options.devices.empty() ? Json(nullptr) : Json(m_options.devices)}};
  }
  const Json& settings = m_record.settings();
  // A resume on other devices (Note [Resume on other devices]): loads written for the run's own
  // devices do not fit another list; the devices then share the logical batch equally.
  std::string loadNote;
  if (m_resumed && !m_options.devices.empty()) {
    ParallelConfig& par = m_project.parallel;
    par.devices = m_options.devices;
    if (!par.workerLoad.empty() && par.workerLoad.size() != par.devices.size()) {
      loadNote = format("; equal loads (parallel.worker_load has {} loads, for the run's own devices)", par.workerLoad.size());
      par.workerLoad.clear();
    }
  } else if (settings.contains("devices") && settings["devices"].is_array()) {
    m_project.parallel.devices = settings["devices"].get<std::vector<std::string>>();
  }
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
  checkAugmentable(m_project.config.augmentation, m_train.sampleShape, m_train.source);
  m_maxEpoch = settings.value("max_epoch", Json()).is_number() ? settings["max_epoch"].get<int64_t>()
                                                                 : m_project.config.maxEpoch;
  bool hasBatchNorm = false;
  for (const GraphNode& n : m_graph->nodes) hasBatchNorm = hasBatchNorm || n.schema->name == "BatchNormalization";
  // Under mpirun each process counts the cores it may use (mpirun binds it to some); the job has
  // that many per process (Note [Devices of an mpirun job] assumes alike processes).
  const std::optional<KeptBatch> kept = m_resumed ? keptBatchOf(settings, m_project) : std::nullopt;
  m_plan = planTraining(m_project, m_train.size, m_maxEpoch, availableCores() * m_job->processes(), hasBatchNorm,
                        kept ? &*kept : nullptr);
  m_training = trainingRecord(m_plan);
  if (m_resumed) m_deviceChange = describeDeviceChange(settings.value("training", Json()), m_training, loadNote);
  else m_record.settings()["training"] = m_training;  // written with run.json by create()
  planDisk(planOnly);
  planData();
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
  m_figures.start(static_cast<size_t>(n), m_jobWorkers);
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
    m_figures.workerStarted(i, *m_contexts[i]);
  });
}

}  // namespace netsmith::training
