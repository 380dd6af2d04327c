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
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/monitor/devices.h"
#include "engine/monitor/process_stats.h"
#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/checkpoint.h"
#include "engine/train/metrics.h"
#include "engine/train/network.h"

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

class TrainingRun {
 public:
  TrainingRun(const TrainOptions& options, EventBus& bus) : m_options(options), m_bus(bus) {}
  ~TrainingRun() {
    if (m_eventsFile) m_bus.remove(m_eventsFile.get());
  }

  void prepare();
  TrainResult run();

 private:
  void restoreFromCheckpoint();
  void saveCheckpoint(int64_t epoch, int64_t iteration);
  BatchCounts validate();
  void writeLearningCurve();
  void writeFinalParameters();
  void emitIteration(int64_t epoch, int64_t iteration, double batchLoss, double lr);
  Json deviceFigures();

  const TrainOptions& m_options;
  EventBus& m_bus;
  std::unique_ptr<JsonLinesSink> m_eventsFile;  // the run's events.jsonl
  fs::path m_runDir;
  Json m_settings;  // run.json: overrides that a resume must keep
  Project m_project;
  std::unique_ptr<Graph> m_graph;
  std::unique_ptr<CpuDeviceContext> m_device;
  std::string m_deviceName;
  std::unique_ptr<Network> m_network;
  std::unique_ptr<Optimizer> m_optimizer;
  std::unique_ptr<LearningRateSchedule> m_schedule;
  Dataset m_train;
  std::optional<Dataset> m_validation;

  int64_t m_batch = 0;
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

  // Figures for iteration events.
  Clock::time_point m_lastEvent;
  int64_t m_samplesSinceEvent = 0;
  double m_computeSecondsSinceEvent = 0.0;
  int64_t m_iterationsSinceEvent = 0;
  double m_cpuAtEvent = 0.0;
  double m_secondsPerIteration = 0.0;  // moving average, for the ETA
};

void TrainingRun::prepare() {
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
    m_runDir = fs::absolute(m_options.runDir.empty() ? newRunFolder(m_project.path) : m_options.runDir);
    fs::create_directories(m_runDir / "checkpoints");
    m_settings = {{"project", m_project.path},
                  {"max_epoch", m_options.maxEpoch ? Json(*m_options.maxEpoch) : Json(nullptr)},
                  {"train_samples", m_options.trainSamples},
                  {"validation_samples", m_options.validationSamples}};
    writeTextAtomically(m_runDir / "run.json", m_settings.dump(2) + "\n");
    writeTextAtomically(m_runDir / "project.nsproj", snapshotJson(m_project).dump(2) + "\n");
  }
  fs::create_directories(m_runDir / "checkpoints");
  m_eventsFile = JsonLinesSink::openFile((m_runDir / "events.jsonl").string());
  m_bus.add(m_eventsFile.get());

  m_graph = std::make_unique<Graph>(buildGraph(m_project.network, OpRegistry::builtin()));
  const auto& devices = m_project.parallel.devices;
  NS_CHECK(devices.size() == 1,
           "parallel.devices: this version trains on one device, got {}: list a single device such as \"cpu:0\"",
           devices.size());
  NS_CHECK(devices[0].rfind("cpu:", 0) == 0,
           "parallel.devices[0]: \"{}\" needs the CUDA backend, which this build does not have: use \"cpu:0\"", devices[0]);
  const int threads = m_project.parallel.threadsPerDevice > 0 ? m_project.parallel.threadsPerDevice : availableCores();
  m_device = std::make_unique<CpuDeviceContext>(devices[0], threads);
  for (const DeviceInfo& info : discoverDevices())
    if (info.id == devices[0]) m_deviceName = info.name;
  m_device->bindToCurrentThread();

  const DatasetSpec& ds = m_project.dataset;
  m_train = loadDataSource(ds.training, ds.scale, ds.onError);
  if (ds.validation.present()) m_validation = loadDataSource(ds.validation, ds.scale, ds.onError);
  truncateDataset(m_train, m_settings.value("train_samples", int64_t{0}));
  if (m_validation) truncateDataset(*m_validation, m_settings.value("validation_samples", int64_t{0}));
  for (const Dataset* d : {&m_train, m_validation ? &*m_validation : nullptr}) {
    if (!d) continue;
    for (const auto& w : d->warnings) m_bus.publish({{"event", "warning"}, {"message", w}});
    const Shape& inShape = m_graph->input().outputShape;
    NS_CHECK(numel(d->sampleShape) == numel(inShape),
             "{}: samples have shape {} but Input '{}' expects {}: change the Input shape to {}", d->source,
             shapeToString(d->sampleShape), m_graph->input().id, shapeToString(inShape), shapeToString(d->sampleShape));
  }

  m_batch = m_project.config.batchSize;
  m_iterationsPerEpoch = m_train.size / m_batch;
  NS_CHECK(m_iterationsPerEpoch >= 1, "config.batch_size: {} is larger than the {} training samples: choose at most {}",
           m_batch, m_train.size, m_train.size);
  m_maxEpoch = m_settings.value("max_epoch", Json()).is_number() ? m_settings["max_epoch"].get<int64_t>()
                                                                 : m_project.config.maxEpoch;

  m_network = std::make_unique<Network>(*m_graph, *m_device);
  m_network->initializeParameters(m_project.config.seed);
  m_optimizer = Optimizer::create(m_project.optimizer);
  m_schedule = std::make_unique<LearningRateSchedule>(m_project.optimizer, m_optimizer->baseLearningRate(),
                                                      m_iterationsPerEpoch, m_maxEpoch);
  if (m_resumed) restoreFromCheckpoint();
}

void TrainingRun::restoreFromCheckpoint() {
  std::vector<std::string> rejected;
  const auto newest = newestValidCheckpoint((m_runDir / "checkpoints").string(), &rejected);
  for (const auto& r : rejected) m_bus.publish({{"event", "warning"}, {"message", "skipped damaged checkpoint: " + r}});
  if (!newest) return;  // stopped before the first checkpoint: start over in the same folder
  CheckpointData data = readCheckpoint(*newest);
  std::map<std::string, Tensor*> byName;
  for (auto& p : m_network->parameters()) byName["param/" + p.name] = p.value;
  Optimizer::StateList optimizerState;
  for (auto& [name, tensor] : data.tensors) {
    if (name.rfind("param/", 0) == 0) {
      const auto it = byName.find(name);
      NS_CHECK(it != byName.end(), "{}: holds {} which the project's network does not have", *newest, name);
      NS_CHECK(it->second->shape() == tensor.shape(), "{}: {} has shape {}, the network expects {}", *newest, name,
               shapeToString(tensor.shape()), shapeToString(it->second->shape()));
      it->second->copyFrom(tensor);
      byName.erase(it);
    } else if (name.rfind("optim/", 0) == 0) {
      optimizerState.emplace_back(name.substr(6), &tensor);
    }
  }
  NS_CHECK(byName.empty(), "{}: lacks {}", *newest, byName.begin()->first);
  const Json& m = data.meta;
  m_optimizer->restoreState(optimizerState, m.at("optimizer_steps").get<int64_t>());
  m_epoch = m.at("epoch").get<int64_t>();
  m_iteration = m.at("iteration").get<int64_t>();
  m_globalIteration = m.at("global_iteration").get<int64_t>();
  m_epochLossSum = m.at("epoch_loss_sum").get<double>();
  m_epochSamples = m.at("epoch_samples").get<int64_t>();
  m_epochSeconds = m.value("epoch_seconds", 0.0);
  if (!m.at("best_validation_error").is_null()) m_bestValidationError = m["best_validation_error"].get<double>();
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
               {"optimizer_steps", m_optimizer->steps()},
               {"seed", m_project.config.seed},
               {"curve", curve},
               {"parameters_sha256", parametersSha256(m_network->parameters())}};
  for (auto& p : m_network->parameters()) data.tensors.emplace_back("param/" + p.name, p.value->clone());
  for (auto& [name, tensor] : m_optimizer->stateTensors()) data.tensors.emplace_back("optim/" + name, tensor->clone());
  char padded[64];
  std::snprintf(padded, sizeof padded, "e%04lld_i%06lld.ckpt", static_cast<long long>(epoch), static_cast<long long>(iteration));
  const fs::path path = m_runDir / "checkpoints" / padded;
  writeCheckpoint(path.string(), data);
  m_bus.publish({{"event", "checkpoint"}, {"epoch", epoch}, {"iteration", iteration},
              {"path", fs::relative(path, m_runDir).string()}});

  // Keep the newest few; names sort by position.
  std::vector<fs::path> all;
  for (const auto& e : fs::directory_iterator(m_runDir / "checkpoints"))
    if (e.path().extension() == ".ckpt") all.push_back(e.path());
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i + kCheckpointsKept < all.size(); ++i) fs::remove(all[i]);
}

BatchCounts TrainingRun::validate() {
  BatchCounts total;
  const Dataset& v = *m_validation;
  Tensor x, y;
  std::vector<int64_t> idx;
  for (int64_t start = 0; start < v.size; start += kValidationBatch) {
    const int64_t n = std::min(kValidationBatch, v.size - start);
    idx.resize(n);
    for (int64_t i = 0; i < n; ++i) idx[i] = start + i;
    gatherBatch(v, idx, x, y);
    RandomKey key{m_project.config.seed, 0, 0, idx.data()};
    const Tensor& loss = m_network->forward(x, y, false, key);
    total.add(countBatch(*m_graph->loss().schema, loss, m_network->prediction(), y));
  }
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
  CheckpointData data;
  data.meta = {{"format", "netsmith-parameters"},
               {"project", m_project.name},
               {"parameters_sha256", parametersSha256(m_network->parameters())}};
  for (auto& p : m_network->parameters()) data.tensors.emplace_back(p.name, p.value->clone());
  writeCheckpoint((m_runDir / "parameters.nsparams").string(), data);
}

Json TrainingRun::deviceFigures() {
  const double wall = secondsSince(m_lastEvent);
  const double cpu = processCpuSeconds();
  const double utilization = wall > 0 ? std::clamp((cpu - m_cpuAtEvent) / (wall * m_device->threads()), 0.0, 1.0) : 0.0;
  m_cpuAtEvent = cpu;
  const double computeMs = m_iterationsSinceEvent ? 1000.0 * m_computeSecondsSinceEvent / m_iterationsSinceEvent : 0.0;
  return Json::array({{{"id", m_device->id()},
                       {"compute_ms", computeMs},
                       {"sync_ms", 0.0},
                       {"wait_ms", 0.0},
                       {"utilization", utilization},
                       {"memory_mb", processResidentMb()}}});
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
            {"samples_per_s", wall > 0 ? m_samplesSinceEvent / wall : 0.0},
            {"eta_s", m_secondsPerIteration * remaining}};
  e["devices"] = deviceFigures();
  m_bus.publish(e);
  m_lastEvent = Clock::now();
  m_samplesSinceEvent = 0;
  m_computeSecondsSinceEvent = 0;
  m_iterationsSinceEvent = 0;
}

TrainResult TrainingRun::run() {
  TrainResult result;
  result.runDir = m_runDir.string();
  const double baseLr = m_optimizer->baseLearningRate();
  m_bus.publish({{"event", "started"},
              {"format_version", kEventsFormatVersion},
              {"run", m_runDir.string()},
              {"project", m_project.name},
              {"devices", Json::array({{{"id", m_device->id()}, {"name", m_deviceName}, {"threads", m_device->threads()}}})},
              {"batch_per_device", m_batch},
              {"logical_batch", m_batch},
              {"iterations_per_epoch", m_iterationsPerEpoch},
              {"max_epoch", m_maxEpoch},
              {"effective_lr", baseLr},
              {"solver", m_project.optimizer.solver},
              {"train_samples", m_train.size},
              {"validation_samples", m_validation ? m_validation->size : 0},
              {"parameters", m_graph->parameterCount},
              {"resumed", m_resumed},
              {"start_epoch", m_epoch + 1},
              {"start_iteration", m_iteration}});

  RunControl idle;
  RunControl& control = m_options.control ? *m_options.control : idle;
  Tensor x, y;
  std::vector<ParamSlot> slots;
  for (auto& p : m_network->parameters())
    if (p.grad) slots.push_back({p.name, p.value, p.grad});
  const float weight = 1.0f / static_cast<float>(m_batch);
  const bool shuffle = m_project.dataset.shuffle;
  const uint64_t seed = m_project.config.seed;

  for (; m_epoch < m_maxEpoch; ++m_epoch) {
    const auto order = epochOrder(m_train.size, seed, m_epoch, shuffle);
    // Throughput figures start afresh each epoch, so validation time does not count as training.
    m_lastEvent = Clock::now();
    m_cpuAtEvent = processCpuSeconds();
    m_samplesSinceEvent = 0;
    m_computeSecondsSinceEvent = 0;
    m_iterationsSinceEvent = 0;
    auto epochStart = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_epochSeconds));
    for (; m_iteration < m_iterationsPerEpoch; ++m_iteration) {
      if (control.paused()) {
        m_bus.publish({{"event", "paused"}, {"epoch", m_epoch + 1}, {"iteration", m_iteration}});
        const bool stop = control.waitWhilePaused();
        m_bus.publish({{"event", "resumed"}, {"epoch", m_epoch + 1}, {"iteration", m_iteration}});
        m_lastEvent = Clock::now();
        m_cpuAtEvent = processCpuSeconds();
        if (stop) break;
      }
      if (control.stopRequested()) break;
      const auto stepStart = Clock::now();
      const std::span<const int64_t> batch(order.data() + m_iteration * m_batch, m_batch);
      gatherBatch(m_train, batch, x, y);
      const Tensor& loss = m_network->forward(x, y, true, RandomKey{seed, 0, static_cast<uint64_t>(m_epoch), batch.data()});
      double lossSum = 0.0;
      for (int64_t i = 0; i < loss.size(); ++i) lossSum += loss[i];
      if (!std::isfinite(lossSum)) {
        const std::string msg = format(
            "the training loss became {} at epoch {}, iteration {} (global iteration {}): lower the learning rate "
            "(now {}) or check the dataset scale; no checkpoint was written for this state",
            lossSum, m_epoch + 1, m_iteration + 1, m_globalIteration + 1, m_schedule->at(m_globalIteration));
        m_bus.publish({{"event", "error"}, {"message", msg}});
        result.status = "failed";
        result.message = msg;
        m_bus.publish({{"event", "finished"}, {"status", "failed"}, {"message", msg}, {"run", m_runDir.string()}});
        return result;
      }
      m_network->backward(weight);
      const double lr = m_schedule->at(m_globalIteration);
      m_optimizer->step(slots, lr);
      ++m_globalIteration;
      m_epochLossSum += lossSum;
      m_epochSamples += m_batch;
      const double stepSeconds = secondsSince(stepStart);
      m_computeSecondsSinceEvent += stepSeconds;
      m_samplesSinceEvent += m_batch;
      ++m_iterationsSinceEvent;
      m_secondsPerIteration = m_secondsPerIteration == 0 ? stepSeconds : 0.98 * m_secondsPerIteration + 0.02 * stepSeconds;
      if (secondsSince(m_lastEvent) >= kIterationEventSeconds || m_iteration + 1 == m_iterationsPerEpoch)
        emitIteration(m_epoch, m_iteration + 1, lossSum / m_batch, lr);
    }
    if (m_iteration < m_iterationsPerEpoch) {  // stopped
      m_epochSeconds = secondsSince(epochStart);
      saveCheckpoint(m_epoch, m_iteration);
      result.status = "stopped";
      break;
    }

    CurveRow row{m_epoch + 1, m_epochLossSum / std::max<int64_t>(m_epochSamples, 1), std::nullopt, std::nullopt, 0.0,
                 m_schedule->at(std::max<int64_t>(m_globalIteration - 1, 0))};
    const bool monitor = (m_epoch + 1) % m_project.config.monitorInterval == 0 || m_epoch + 1 == m_maxEpoch;
    if (m_validation && monitor) {
      const BatchCounts v = validate();
      row.validationLoss = v.lossSum / std::max<int64_t>(v.samples, 1);
      if (v.counted > 0) {
        row.validationError = static_cast<double>(v.errors) / v.counted;
        if (!m_bestValidationError || *row.validationError < *m_bestValidationError)
          m_bestValidationError = row.validationError;
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
                {"lr", row.learningRate}});
    writeLearningCurve();
    m_iteration = 0;
    m_epochLossSum = 0.0;
    m_epochSamples = 0;
    m_epochSeconds = 0.0;
    saveCheckpoint(m_epoch + 1, 0);
  }
  if (result.status.empty()) result.status = "completed";

  result.parametersSha256 = parametersSha256(m_network->parameters());
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
    run.prepare();
  } catch (const Error& e) {
    result.status = "failed";
    result.message = e.what();
    bus.publish({{"event", "error"}, {"message", result.message}});
    bus.publish({{"event", "finished"}, {"status", "failed"}, {"message", result.message}});
    return result;
  }
  try {
    return run.run();
  } catch (const std::exception& e) {
    result.status = "failed";
    result.message = e.what();
    bus.publish({{"event", "error"}, {"message", result.message}});
    bus.publish({{"event", "finished"}, {"status", "failed"}, {"message", result.message}});
    return result;
  }
}

}  // namespace netsmith
