#include "engine/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/device_factory.h"
#include "engine/comm/communicator.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/eval/parameters_file.h"
#include "engine/monitor/devices.h"
#include "engine/monitor/process_stats.h"
#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/checkpoint.h"
#include "engine/train/metrics.h"
#include "engine/train/fault_injection.h"
#include "engine/train/network.h"
#include "engine/train/replica.h"
#include "engine/train/worker_pool.h"

namespace fs = std::filesystem;

namespace netsmith {
namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr int kCheckpointsKept = 3;
constexpr double kIterationEventSeconds = 0.05;  // at most ~20 iteration events per second
constexpr int64_t kValidationBatch = 256;

std::string timestampFolderName() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

// A new run folder that does not exist yet: <folder>/<stem>.runs/<timestamp>[-N].
std::string newRunFolder(const std::string& projectPath) {
  const fs::path p(projectPath);
  const fs::path root = p.parent_path() / (p.stem().string() + ".runs");
  fs::path dir = root / timestampFolderName();
  for (int n = 2; fs::exists(dir); ++n) dir = root / (timestampFolderName() + "-" + std::to_string(n));
  return dir.string();
}

void writeTextAtomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    NS_CHECK(out.good(), "{}: cannot write", tmp.string());
    out << text;
    NS_CHECK(out.good(), "{}: write failed", tmp.string());
  }
  fs::rename(tmp, path);
}

// The project as the run folder keeps it: the user's JSON with dataset paths made absolute, so
// the snapshot reads the same data from its new folder.
Json snapshotJson(const Project& project) {
  Json j = projectToJson(project);
  auto fix = [&](const char* part, const DataSourceSpec& src) {
    if (!src.present()) return;
    Json& s = j["dataset"][part];
    if (!src.images.empty()) s["images"] = src.images;
    if (!src.labels.empty()) s["labels"] = src.labels;
    if (!src.csv.empty()) s["csv"] = src.csv;
  };
  fix("training", project.dataset.training);
  fix("validation", project.dataset.validation);
  return j;
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

class TrainingRun {
 public:
  TrainingRun(const TrainOptions& options, EventBus& bus) : m_options(options), m_bus(bus) {}
  ~TrainingRun();

  // Loads the project, data and plan; planOnly stops there (nothing written).
  void prepare(bool planOnly);
  TrainResult run();
  const TrainingPlan& plan() const { return m_plan; }
  int abandonedWorkers() const { return m_pool ? m_pool->abandonedWorkers() : 0; }

 private:
  void openRunFolder();
  void startWorkers();
  void restoreFromCheckpoint();
  void saveCheckpoint(int64_t epoch, int64_t iteration);
  void checkReplicas(const std::string& when);
  BatchCounts validate();
  void writeLearningCurve();
  void writeFinalParameters();
  void emitIteration(int64_t epoch, int64_t iteration, double batchLoss, double lr);
  Json deviceFigures();
  Json scalingSummary() const;
  void resetEventWindow();
  TrainResult fail(TrainResult result, const std::string& message);

  const TrainOptions& m_options;
  EventBus& m_bus;
  std::unique_ptr<JsonLinesSink> m_eventsFile;  // the run's events.jsonl
  fs::path m_runDir;
  Json m_settings;  // run.json: overrides that a resume must keep
  Project m_project;
  std::unique_ptr<Graph> m_graph;
  TrainingPlan m_plan;
  std::vector<DevicePlan> m_workers;  // the active devices, one worker each
  std::map<std::string, std::string> m_deviceNames;
  std::unique_ptr<LearningRateSchedule> m_schedule;
  Dataset m_train;
  std::optional<Dataset> m_validation;
  FaultInjection m_fault;

  // Declared in this order so that the pool's threads end first (see ~TrainingRun).
  std::unique_ptr<CommunicatorGroup> m_group;
  std::vector<std::unique_ptr<DeviceContext>> m_contexts;
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

  // Per worker: this step's figures, the totals since the last iteration event and over the
  // epoch, and busy seconds at the last event.
  std::vector<StepFigures> m_step;
  std::vector<double> m_busy;
  std::vector<double> m_busyAtEvent;
  std::vector<WorkerTotals> m_sinceEvent;
  std::vector<WorkerTotals> m_epochTotals;
  double m_epochTrainWall = 0.0;  // seconds in training iterations this epoch (validation excluded)
  int64_t m_epochTrainSamples = 0;
  Clock::time_point m_lastEvent;
  int64_t m_samplesSinceEvent = 0;
  double m_secondsPerIteration = 0.0;  // moving average, for the ETA
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
  }
}

void TrainingRun::openRunFolder() {
  if (m_resumed) {
    fs::create_directories(m_runDir / "checkpoints");
  } else {
    m_runDir = fs::absolute(m_options.runDir.empty() ? newRunFolder(m_project.path) : m_options.runDir);
    fs::create_directories(m_runDir / "checkpoints");
    writeTextAtomically(m_runDir / "run.json", m_settings.dump(2) + "\n");
    writeTextAtomically(m_runDir / "project.nsproj", snapshotJson(m_project).dump(2) + "\n");
  }
  m_eventsFile = JsonLinesSink::openFile((m_runDir / "events.jsonl").string());
  m_bus.add(m_eventsFile.get());
}

void TrainingRun::prepare(bool planOnly) {
  if (!m_options.resumeRun.empty()) {
    m_runDir = fs::absolute(m_options.resumeRun);
    NS_CHECK(fs::is_directory(m_runDir), "{}: no such run folder", m_runDir.string());
    const fs::path settings = m_runDir / "run.json";
    std::ifstream in(settings);
    NS_CHECK(in.good(), "{}: missing; is {} a Netsmith run folder?", settings.string(), m_runDir.string());
    try {
      m_settings = Json::parse(in);
    } catch (const std::exception& e) {
      NS_THROW("{}: not valid JSON: {}", settings.string(), e.what());
    }
    m_project = loadProject((m_runDir / "project.nsproj").string());
    m_resumed = true;
  } else {
    m_project = loadProject(m_options.projectPath);
    m_settings = {{"project", m_project.path},
                  {"max_epoch", m_options.maxEpoch ? Json(*m_options.maxEpoch) : Json(nullptr)},
                  {"train_samples", m_options.trainSamples},
                  {"validation_samples", m_options.validationSamples},
                  {"devices", m_options.devices.empty() ? Json(nullptr) : Json(m_options.devices)}};
  }
  if (m_settings.contains("devices") && m_settings["devices"].is_array())
    m_project.parallel.devices = m_settings["devices"].get<std::vector<std::string>>();
  m_fault = FaultInjection::parse(m_options.faultInjection);

  m_graph = std::make_unique<Graph>(buildGraph(m_project.network, OpRegistry::builtin()));
  const DatasetSpec& ds = m_project.dataset;
  m_train = loadDataSource(ds.training, ds.scale, ds.onError);
  if (ds.validation.present() && !planOnly) m_validation = loadDataSource(ds.validation, ds.scale, ds.onError);
  truncateDataset(m_train, m_settings.value("train_samples", int64_t{0}));
  if (m_validation) truncateDataset(*m_validation, m_settings.value("validation_samples", int64_t{0}));
  const Shape& inShape = m_graph->input().outputShape;
  for (const Dataset* d : {&m_train, m_validation ? &*m_validation : nullptr}) {
    if (!d) continue;
    NS_CHECK(numel(d->sampleShape) == numel(inShape),
             "{}: samples have shape {} but Input '{}' expects {}: change the Input shape to {}", d->source,
             shapeToString(d->sampleShape), m_graph->input().id, shapeToString(inShape), shapeToString(d->sampleShape));
  }
  m_maxEpoch = m_settings.value("max_epoch", Json()).is_number() ? m_settings["max_epoch"].get<int64_t>()
                                                                 : m_project.config.maxEpoch;
  bool hasBatchNorm = false;
  for (const GraphNode& n : m_graph->nodes) hasBatchNorm = hasBatchNorm || n.schema->name == "BatchNormalization";
  m_plan = planTraining(m_project, m_train.size, m_maxEpoch, availableCores(), hasBatchNorm);
  if (planOnly) return;

  openRunFolder();
  for (const Dataset* d : {&m_train, m_validation ? &*m_validation : nullptr})
    if (d)
      for (const auto& w : d->warnings) m_bus.publish({{"event", "warning"}, {"message", w}});
  for (const auto& w : m_plan.warnings) m_bus.publish({{"event", "warning"}, {"message", w}});
  m_iterationsPerEpoch = m_plan.iterationsPerEpoch;
  m_schedule = std::make_unique<LearningRateSchedule>(m_plan.optimizer, m_plan.effectiveLr, m_iterationsPerEpoch, m_maxEpoch);
  for (const DeviceInfo& info : discoverDevices()) m_deviceNames[info.id] = info.name;
  startWorkers();
  if (m_resumed) restoreFromCheckpoint();
  checkReplicas("at the start");
}

void TrainingRun::startWorkers() {
  for (const DevicePlan& d : m_plan.devices)
    if (d.batch > 0) m_workers.push_back(d);
  const int n = static_cast<int>(m_workers.size());
  std::vector<std::string> ids;
  for (const auto& w : m_workers) ids.push_back(w.id);
  const double timeout = m_project.parallel.timeoutS;
  // Contexts and the communicator group come from the devices' kind (engine/backend/device_factory.h).
  const DeviceKind& kind = deviceKindOf(ids.at(0));
  for (const auto& id : ids)
    NS_CHECK(&deviceKindOf(id) == &kind, "parallel.devices: {} and {} are of different kinds; train on devices of one "
             "kind (all cpu:N or all cuda:N)", ids[0], id);
  m_group = kind.makeGroup(ids, timeout);
  m_contexts.resize(static_cast<size_t>(n));
  m_replicas.resize(static_cast<size_t>(n));
  m_step.assign(static_cast<size_t>(n), {});
  m_busy.assign(static_cast<size_t>(n), 0.0);
  m_busyAtEvent.assign(static_cast<size_t>(n), 0.0);
  m_sinceEvent.assign(static_cast<size_t>(n), {});
  m_epochTotals.assign(static_cast<size_t>(n), {});
  CommunicatorGroup* group = m_group.get();
  // A worker that fails aborts its communicator, so the others stop at their next collective
  // instead of waiting out the timeout. A worker still busy a while after the timeout is hung.
  m_pool = std::make_unique<WorkerPool>(ids, timeout + 10.0, [group](int w, const std::string& reason) {
    group->communicator(w).abort(reason);
  });
  m_pool->runOnAll([&](int w) {
    const auto i = static_cast<size_t>(w);
    m_contexts[i] = kind.makeContext(m_workers[i], m_plan, m_project);
    if (kind.attachWorker) kind.attachWorker(*group, w, *m_contexts[i]);
    m_replicas[i] = std::make_unique<Replica>(*m_graph, m_plan, m_workers[i], *m_contexts[i], group->communicator(w),
                                              m_project.config.seed);
    m_busy[i] = m_contexts[i]->busySeconds();
  });
}

void TrainingRun::checkReplicas(const std::string& when) {
  if (m_replicas.size() < 2) return;
  std::vector<std::string> prints(m_replicas.size());
  m_pool->runOnAll([&](int w) { prints[static_cast<size_t>(w)] = m_replicas[static_cast<size_t>(w)]->fingerprint(); });
  for (size_t w = 1; w < prints.size(); ++w) {
    NS_CHECK(prints[w] == prints[0],
             "the replicas differ {}: {}'s parameters (fingerprint {}) are not {}'s ({}); every device must apply the "
             "same update, so this is a bug in a kernel or in the all-reduce",
             when, m_workers[w].id, prints[w].substr(0, 12), m_workers[0].id, prints[0].substr(0, 12));
  }
}

void TrainingRun::restoreFromCheckpoint() {
  std::vector<std::string> rejected;
  const auto newest = newestValidCheckpoint((m_runDir / "checkpoints").string(), &rejected);
  for (const auto& r : rejected) m_bus.publish({{"event", "warning"}, {"message", "skipped damaged checkpoint: " + r}});
  if (!newest) return;  // stopped before the first checkpoint: start over in the same folder
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
  NS_CHECK(m_iteration <= m_iterationsPerEpoch,
           "{}: was written at iteration {} of an epoch, but this run has {} iterations per epoch", *newest, m_iteration,
           m_iterationsPerEpoch);
  m_curve.clear();
  for (const Json& r : m.at("curve")) {
    CurveRow row{r.at(0).get<int64_t>(), r.at(1).get<double>(), std::nullopt, std::nullopt, r.at(4).get<double>(),
                 r.at(5).get<double>()};
    if (!r.at(2).is_null()) row.validationLoss = r[2].get<double>();
    if (!r.at(3).is_null()) row.validationError = r[3].get<double>();
    m_curve.push_back(row);
  }
  writeLearningCurve();
  m_bus.publish({{"event", "resumed_from_checkpoint"}, {"path", *newest}, {"epoch", m_epoch + 1}, {"iteration", m_iteration}});
}

void TrainingRun::saveCheckpoint(int64_t epoch, int64_t iteration) {
  checkReplicas(format("at the checkpoint of epoch {}, iteration {}", epoch + (iteration > 0 ? 1 : 0), iteration));
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
               {"parameters_sha256", replica.fingerprint()}};
  for (auto& p : replica.network().parameters()) data.tensors.emplace_back("param/" + p.name, p.value->clone());
  for (auto& [name, tensor] : replica.optimizer().stateTensors()) data.tensors.emplace_back("optim/" + name, tensor->clone());
  char padded[64];
  std::snprintf(padded, sizeof padded, "e%04lld_i%06lld.ckpt", static_cast<long long>(epoch), static_cast<long long>(iteration));
  const fs::path path = m_runDir / "checkpoints" / padded;
  writeCheckpoint(path.string(), data);
  m_bus.publish({{"event", "checkpoint"}, {"epoch", epoch}, {"iteration", iteration},
                 {"global_iteration", m_globalIteration}, {"path", fs::relative(path, m_runDir).string()}});

  // Keep the newest few; names sort by position.
  std::vector<fs::path> all;
  for (const auto& e : fs::directory_iterator(m_runDir / "checkpoints"))
    if (e.path().extension() == ".ckpt") all.push_back(e.path());
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i + kCheckpointsKept < all.size(); ++i) fs::remove(all[i]);
}

// Every worker evaluates a contiguous share of the blocks; the blocks' counts are added in block
// order, so the result does not depend on the number of devices.
BatchCounts TrainingRun::validate() {
  const Dataset& v = *m_validation;
  const int64_t blocks = (v.size + kValidationBatch - 1) / kValidationBatch;
  const auto n = static_cast<int64_t>(m_replicas.size());
  std::vector<std::vector<BatchCounts>> perWorker(m_replicas.size());
  m_pool->runOnAll([&](int w) {
    const int64_t first = blocks * w / n;
    const int64_t last = blocks * (w + 1) / n;
    perWorker[static_cast<size_t>(w)] = m_replicas[static_cast<size_t>(w)]->evaluateBlocks(
        v, std::min(first * kValidationBatch, v.size), std::min(last * kValidationBatch, v.size), kValidationBatch);
  });
  BatchCounts total;
  for (const auto& counts : perWorker)
    for (const auto& c : counts) total.add(c);
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
  for (size_t w = 0; w < m_workers.size(); ++w) {
    const WorkerTotals& t = m_sinceEvent[w];
    const double per = t.iterations ? 1000.0 / static_cast<double>(t.iterations) : 0.0;
    const double busy = m_busy[w] - m_busyAtEvent[w];
    const double utilization = wall > 0 ? std::clamp(busy / (wall * m_workers[w].threads), 0.0, 1.0) : 0.0;
    devices.push_back({{"id", m_workers[w].id},
                       {"compute_ms", t.compute * per},
                       {"sync_ms", t.sync * per},
                       {"wait_ms", t.wait * per},
                       {"utilization", utilization},
                       {"memory_mb", static_cast<double>(m_replicas[w]->memoryBytes()) / (1024.0 * 1024.0)}});
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
  return {{"devices", m_workers.size()},
          {"samples_per_s", wall > 0 ? static_cast<double>(m_epochTrainSamples) / wall : 0.0},
          {"communication_share", compute + wait > 0 ? wait / (compute + wait) : 0.0},
          {"sync_seconds", sync},
          {"speedup_estimate", wall > 0 ? compute / wall : 0.0}};
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
  m_bus.publish({{"event", "error"}, {"message", message}});
  result.status = "failed";
  result.message = message;
  result.abandonedWorkers = abandonedWorkers();
  m_bus.publish({{"event", "finished"}, {"status", "failed"}, {"message", message}, {"run", m_runDir.string()}});
  return result;
}

TrainResult TrainingRun::run() {
  TrainResult result;
  result.runDir = m_runDir.string();
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
  m_bus.publish(started);

  RunControl idle;
  RunControl& control = m_options.control ? *m_options.control : idle;
  const bool shuffle = m_project.dataset.shuffle;
  const uint64_t seed = m_project.config.seed;
  const int64_t batch = m_plan.logicalBatch;

  try {
    for (; m_epoch < m_maxEpoch; ++m_epoch) {
      const auto order = epochOrder(m_train.size, seed, m_epoch, shuffle);
      // Throughput figures start afresh each epoch, so validation time does not count as training.
      resetEventWindow();
      m_epochTotals.assign(m_epochTotals.size(), {});
      m_epochTrainWall = 0;
      m_epochTrainSamples = 0;
      auto epochStart = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_epochSeconds));
      for (; m_iteration < m_iterationsPerEpoch; ++m_iteration) {
        if (control.paused()) {
          const Json position = {{"epoch", m_epoch + 1}, {"iteration", m_iteration}, {"global_iteration", m_globalIteration}};
          Json paused = position;
          paused["event"] = "paused";
          m_bus.publish(paused);
          const bool stop = control.waitWhilePaused();
          Json resumed = position;
          resumed["event"] = "resumed";
          m_bus.publish(resumed);
          resetEventWindow();
          if (stop) break;
        }
        if (control.stopRequested()) break;
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
          m_busy[i] = m_contexts[i]->busySeconds();
        });
        double lossSum = 0.0;
        for (size_t w = 0; w < m_step.size(); ++w) {
          lossSum += m_step[w].lossSum;
          m_sinceEvent[w].add(m_step[w]);
          m_epochTotals[w].add(m_step[w]);
        }
        if (!std::isfinite(lossSum)) {
          return fail(result, format("the training loss became {} at epoch {}, iteration {} (global iteration {}): lower "
                                     "the learning rate (now {}) or check the dataset scale; no checkpoint was written "
                                     "for this state",
                                     lossSum, m_epoch + 1, m_iteration + 1, m_globalIteration + 1, lr));
        }
        ++m_globalIteration;
        m_epochLossSum += lossSum;
        m_epochSamples += batch;
        const double stepSeconds = secondsSince(stepStart);
        m_epochTrainWall += stepSeconds;
        m_epochTrainSamples += batch;
        m_samplesSinceEvent += batch;
        m_secondsPerIteration = m_secondsPerIteration == 0 ? stepSeconds : 0.98 * m_secondsPerIteration + 0.02 * stepSeconds;
        if (secondsSince(m_lastEvent) >= kIterationEventSeconds || m_iteration + 1 == m_iterationsPerEpoch)
          emitIteration(m_epoch, m_iteration + 1, lossSum / static_cast<double>(batch), lr);
      }
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
        const BatchCounts v = validate();
        row.validationLoss = v.lossSum / static_cast<double>(std::max<int64_t>(v.samples, 1));
        if (v.counted > 0) {
          row.validationError = static_cast<double>(v.errors) / static_cast<double>(v.counted);
          if (!m_bestValidationError || *row.validationError < *m_bestValidationError) {
            m_bestValidationError = row.validationError;
            // Hook (evaluation, issue 6): config.save_best keeps the best epoch's parameters beside
            // the last ones, for `evaluate/infer/export --parameters best` (engine/eval).
            if (m_project.config.saveBest)
              writeParametersFile((m_runDir / "best.nsparams").string(), m_replicas[0]->network(),
                                  {{"project", m_project.name}, {"epoch", row.epoch},
                                   {"validation_error", *row.validationError}});
          }
        }
      }
      row.seconds = secondsSince(epochStart);
      m_curve.push_back(row);
      m_bus.publish({{"event", "epoch"},
                     {"epoch", row.epoch},
                     {"train_loss", row.trainLoss},
                     {"validation_loss", optionalJson(row.validationLoss)},
                     {"validation_error", optionalJson(row.validationError)},
                     {"seconds", row.seconds},
                     {"lr", row.learningRate},
                     {"scaling", scalingSummary()}});
      writeLearningCurve();
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
  if (result.status == "completed") writeFinalParameters();
  m_bus.publish({{"event", "finished"},
                 {"status", result.status},
                 {"run", m_runDir.string()},
                 {"epochs", static_cast<int64_t>(m_curve.size())},
                 {"best_validation_error", optionalJson(m_bestValidationError)},
                 {"parameters_sha256", result.parametersSha256}});
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
    bus.publish({{"event", "error"}, {"message", result.message}});
    bus.publish({{"event", "finished"}, {"status", "failed"}, {"message", result.message}});
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
