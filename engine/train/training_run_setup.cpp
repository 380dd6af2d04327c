// TrainingRun's set-up (training_run.h): the project, data and plan, the job's devices and the
// workers; the run folder (RunFiles) and the job (JobSync) are opened from here.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/data/augment.h"
#include "engine/core/text_files.h"
#include "engine/data/label_check.h"
#include "engine/monitor/devices.h"
#include "engine/optim/optimizer.h"
#include "engine/project/classifier_head.h"
#include "engine/project/device_name.h"
#include "engine/project/project_io.h"
#include "engine/model/checkpoint.h"
#include "engine/model/network.h"
#include "engine/train/initial_parameters.h"
#include "engine/train/job_sync.h"
#include "engine/train/openmp_pools.h"
#include "engine/train/run_folder.h"
#include "engine/train/training_run.h"

namespace fs = std::filesystem;

namespace netsmith::training {

namespace {

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
  m_files.closeEvents();
  const bool abandoned = m_pool && m_pool->abandonedWorkers() > 0;
  m_pool.reset();
  if (abandoned) {
    // A hung worker may still touch its replica, device and communicator: leave them be; the
    // process exits soon (TrainResult::abandonedWorkers).
    for (auto& r : m_replicas) (void)r.release();
    for (auto& c : m_contexts) (void)c.release();
    m_sync.abandonCommunicators();
    return;
  }
  // A failed run may have left collectives queued on the devices, waiting for a peer that will
  // never come: end them before the devices' destructors wait for their streams.
  m_sync.endAfterFailure();
}

void TrainingRun::recordFailure(const std::string& message) {
  if (m_sync.joined() && m_sync.leader()) m_files.recordFailure(message);
}

void TrainingRun::prepare(bool planOnly) {
  const bool resumed = !m_options.resumeRun.empty();
  if (resumed) {
    m_files.openForResume(m_options.resumeRun);
    m_project = loadProject(m_files.projectSnapshotPath());
  } else {
    m_project = loadProject(m_options.projectPath);
    // What a resume keeps (run.json's settings).
    Json kept = {{"project", m_project.path},
                 {"max_epoch", m_options.maxEpoch ? Json(*m_options.maxEpoch) : Json(nullptr)},
                 {"early_stopping", m_options.earlyStopping ? Json(*m_options.earlyStopping) : Json(nullptr)},
                 {"train_samples", m_options.trainSamples},
                 {"validation_samples", m_options.validationSamples},
                 {"devices", m_options.devices.empty() ? Json(nullptr) : Json(m_options.devices)}};
    // Note [TensorBoard HParams]: checked now, before the run has a folder.
    if (!hparamsOf(m_options.hparams).empty()) kept["hparams"] = m_options.hparams;
    m_files.chooseNew(m_options.runDir, m_project.path, std::move(kept));
  }
  const Json& settings = m_files.settings();
  // A resume on other devices (Note [Resume on other devices]): loads written for the run's own
  // devices do not fit another list; the devices then share the logical batch equally.
  std::string loadNote;
  if (resumed && !m_options.devices.empty()) {
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
  m_sync.join(m_project.parallel);
  // A second process on the folder is refused before it loads anything.
  if (resumed && m_sync.leader() && !planOnly) m_files.claimForResume(m_project.config.seed, m_options.acceptEditedSettings);

  m_graph = std::make_unique<Graph>(buildGraph(m_project.network, OpRegistry::builtin()));
  const DatasetSpec& ds = m_project.dataset;
  // Note [OpenMP pools]: decoding uses OpenMP; off this thread, so its pool does not outlive it.
  runOnShortLivedThread([&] {
    m_train = loadDataSource(ds.training, ds.scale, ds.onError);
    if (ds.validation.present() && !planOnly) m_validation = loadDataSource(ds.validation, ds.scale, ds.onError);
  });
  // Note [Classifier head]: more classes than the head's outputs is said with the command that
  // fixes it; fewer is one of the plan's warnings. A label beyond the outputs may as well be a
  // broken row (a 99999 among 0..9), so the label check speaks first, naming the file, the row and
  // the label, and the head's command follows as the other way out; with on_error "skip" such rows
  // are skipped (and counted) like any other bad row.
  const ClassCountCheck classCheck = checkClassCount(
      *m_graph, std::max<int64_t>(m_train.numClasses, static_cast<int64_t>(m_train.classNames.size())), m_project.path);
  // Every label against the loss now, not when it first reaches a batch (an epoch late for validation).
  const LabelRule labelRule = labelRuleOf(*m_graph);
  try {
    checkLabels(m_train, labelRule, ds.onError);
    if (m_validation) checkLabels(*m_validation, labelRule, ds.onError);
  } catch (const Error& e) {
    if (!classCheck.fatal) throw;
    NS_THROW("{}. If the dataset really has that many classes: {}", e.what(), classCheck.message);
  }
  NS_CHECK(!classCheck.fatal || ds.onError == "skip", "{}", classCheck.message);
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
  const int64_t maxEpoch = settings.value("max_epoch", Json()).is_number() ? settings["max_epoch"].get<int64_t>()
                                                                           : m_project.config.maxEpoch;
  bool hasBatchNorm = false;
  for (const GraphNode& n : m_graph->nodes) hasBatchNorm = hasBatchNorm || n.schema->usesBatchStatistics;
  // Under mpirun each process counts the cores it may use (mpirun binds it to some); the job has
  // that many per process (Note [Devices of an mpirun job] assumes alike processes).
  const std::optional<KeptBatch> kept = resumed ? keptBatchOf(settings, m_project) : std::nullopt;
  m_plan = planTraining(m_project, m_train.size, maxEpoch, availableCores() * m_sync.processes(), hasBatchNorm,
                        kept ? &*kept : nullptr);
  if (!classCheck.message.empty()) m_plan.warnings.push_back(classCheck.message);
  // Note [Regression loss on class labels]
  if (std::string fit = regressionLossOnClassLabels(m_train, labelRule); !fit.empty()) m_plan.warnings.push_back(std::move(fit));
  const Json training = trainingRecord(m_plan);
  m_files.setTraining(training, resumed ? describeDeviceChange(settings.value("training", Json()), training, loadNote)
                                        : Json(nullptr));
  const int buffers = static_cast<int>(Optimizer::create(m_project.optimizer)->bufferNames().size());
  // Note [Weight averaging]: a checkpoint holds the average beside the weights, as one more buffer.
  const int averages = m_project.optimizer.emaDecay > 0 ? 1 : 0;
  m_files.planDisk(m_plan, m_graph->parameterCount, buffers + averages, planOnly, m_sync.leader());
  planData();
  if (planOnly) return;
  // Note [Memory before launch]: refused before any worker loads (a --dry-run shows it as a warning).
  for (const protocol::DeviceMemoryNeed& need : m_plan.memory)
    NS_CHECK(need.fits(), "{}: {}. The plan's Memory lines (--dry-run) give each part", m_project.path,
             describeShortfall(need));

  if (m_sync.leader()) {
    Project snapshot = m_project;
    snapshot.parallel = m_sync.asWritten();
    m_files.open(snapshot, m_options.devices, maxEpoch);
    for (const Dataset* d : {&m_train, m_validation ? &*m_validation : nullptr})
      if (d)
        for (const auto& w : d->warnings) m_bus.publish({{"event", "warning"}, {"message", w}});
    for (const auto& w : m_plan.warnings) m_bus.publish({{"event", "warning"}, {"message", w}});
  }
  m_position.setLength(m_plan.iterationsPerEpoch, maxEpoch);
  if (const auto& range = m_options.learningRateRange) {
    // The ramp is in the project's rates; lr_policy scales it for the devices as it scales the base.
    m_schedule = std::make_unique<LearningRateSchedule>(
        LearningRateSchedule::rangeTest(range->low * m_plan.lrScale, range->high * m_plan.lrScale, range->iterations));
  } else {
    m_schedule = std::make_unique<LearningRateSchedule>(m_plan.optimizer, m_plan.effectiveLr, m_plan.iterationsPerEpoch,
                                                        maxEpoch);
  }
  for (const DeviceInfo& info : trainingDevices()) m_deviceNames[info.id] = info.name;
  startWorkers();
  if (resumed) restoreFromCheckpoint();
  checkReplicas("at the start");
}

void TrainingRun::startWorkers() {
  m_sync.assignWorkers(m_plan.devices);
  const std::vector<DevicePlan>& workers = m_sync.workers();
  const int n = static_cast<int>(workers.size());
  std::vector<std::string> ids;
  for (const auto& w : workers) ids.push_back(w.id);
  const double timeout = m_project.parallel.timeoutS;
  // Contexts and the communicator group come from the devices' kind (engine/devices/device_factory.h).
  const DeviceKind& kind = deviceKindOf(localDeviceId(ids.at(0)));
  for (const auto& id : ids)
    NS_CHECK(&deviceKindOf(localDeviceId(id)) == &kind, "parallel.devices: {} and {} are of different kinds; train on "
             "devices of one kind (all cpu:N or all cuda:N)", ids[0], id);
  const bool acrossProcesses = m_sync.processes() > 1;
  NS_CHECK(!acrossProcesses || kind.kind == "cpu" || kind.makeJobGroup,
           "parallel.devices: {} under mpirun: this build cannot train {} devices across processes", ids[0], kind.kind);
  std::vector<std::string> groupIds = ids;
  if (kind.kind != "cpu")  // other kinds open their devices by their local ids
    for (auto& id : groupIds) id = localDeviceId(id);
  m_sync.connect(kind, groupIds, timeout);
  m_contexts.resize(static_cast<size_t>(n));
  m_replicas.resize(static_cast<size_t>(n));
  m_figures.start(static_cast<size_t>(n), m_sync.jobWorkers());
  CommunicatorGroup* group = &m_sync.group();
  // A worker that fails aborts its communicator, so the others stop at their next collective
  // instead of waiting out the timeout. A worker still busy a while after the timeout is hung.
  m_pool = std::make_unique<WorkerPool>(ids, timeout + 10.0, [group](int w, const std::string& reason) {
    group->communicator(w).abort(reason);
  });
  // Note [Initial parameters]: a new run reads config.initial_parameters once; a resume does not.
  std::optional<InitialParameters> initial;
  if (m_options.resumeRun.empty() && !m_project.config.initialParameters.empty()) {
    initial = readInitialParameters(m_project.config.initialParameters, *m_graph);
    m_initialReport = initial->report;  // published after `started` (trainer.cpp)
    if (m_sync.leader()) m_files.recordInitialParameters(initial->report.toJson());
  }
  m_pool->runOnAll([&](int w) {
    const auto i = static_cast<size_t>(w);
    DeviceOptions device;
    device.id = localDeviceId(workers[i].id);
    device.threads = workers[i].threads;
    device.precision = parsePrecision(m_plan.precision);
    device.deterministic = m_plan.deterministic;
    m_contexts[i] = kind.makeContext(device);
    if (kind.attachWorker) kind.attachWorker(*group, w, *m_contexts[i]);
    m_replicas[i] = std::make_unique<Replica>(*m_graph, m_plan, workers[i], *m_contexts[i], m_sync.communicator(w),
                                              m_project.config.seed);
    m_replicas[i]->reserveBatches(m_train, m_validation ? &*m_validation : nullptr);
    if (initial) applyInitialParameters(*initial, m_replicas[i]->network());
    m_figures.workerStarted(i, *m_contexts[i]);
  });
}

}  // namespace netsmith::training
