#include "engine/eval/run_model.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/devices/device_factory.h"
#include "engine/core/error.h"
#include "engine/data/class_names.h"
#include "engine/project/device_name.h"
#include "engine/project/project_io.h"
#include "engine/train/initial_parameters.h"
#include "engine/model/network.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/run_folder.h"
#include "engine/train/worker_pool.h"

namespace fs = std::filesystem;

namespace netsmith {

RunModel::RunModel(const std::string& runDir, const std::string& which) : m_runDir(fs::absolute(runDir).string()) {
  if (fs::path(runDir).extension() == ".nsproj" && !fs::is_directory(runDir)) {
    loadProjectFile(runDir, which);
    return;
  }
  NS_CHECK(fs::is_directory(m_runDir), "{}: no such run folder", m_runDir);
  const fs::path snapshot = fs::path(m_runDir) / "project.nsproj";
  NS_CHECK(fs::exists(snapshot), "{}: missing; is {} a Netsmith run folder?", snapshot.string(), m_runDir);
  m_project = loadProject(snapshot.string());
  m_graph = std::make_unique<Graph>(buildGraph(m_project.network, OpRegistry::builtin()));
  m_devices = m_project.parallel.devices;
  const fs::path settings = fs::path(m_runDir) / "run.json";
  if (fs::exists(settings)) {
    std::ifstream in(settings);
    Json j = Json::parse(in, nullptr, false);
    NS_CHECK(!j.is_discarded(), "{}: not valid JSON", settings.string());
    if (j.contains("devices") && j["devices"].is_array()) m_devices = j["devices"].get<std::vector<std::string>>();
  }
  m_parameters = readRunParameters(m_runDir, which);
  // Note [Run class names]: the run's own file, else (an older run) the training CSV's.
  fs::path names = runClassNamesPath(m_runDir);
  const DataSourceSpec& training = m_project.dataset.training;
  std::error_code ec;
  if (!fs::is_regular_file(names, ec) && training.format == "csv" && !training.csv.empty())
    names = classNamesPathFor(training.csv);
  if (fs::is_regular_file(names, ec)) {
    m_classNames = readClassNames(names);
    m_classNamesFile = names.string();
  }
  if (m_classNames.empty()) m_classNames = training.classNames;  // dataset.class_names of its project
}

void RunModel::loadProjectFile(const std::string& path, const std::string& which) {
  m_fromProject = true;
  m_project = loadProject(path);
  m_runDir = fs::path(m_project.path).parent_path().string();
  m_graph = std::make_unique<Graph>(buildGraph(m_project.network, OpRegistry::builtin()));
  m_devices = m_project.parallel.devices;
  const std::string& initial = m_project.config.initialParameters;
  NS_CHECK(!initial.empty(),
           "{}: has no config.initial_parameters, so it has no parameters to predict with: train it and give the run "
           "folder, or set config.initial_parameters to a .nsparams file",
           m_project.path);
  NS_CHECK(which == "last" || which == "initial",
           "--parameters {}: a project has only its initial parameters ({}); give a run folder for 'best'", which, initial);
  // A run folder (its parameters.nsparams, else best.nsparams) as training takes it (Note [Initial parameters]).
  std::string file;
  try {
    file = initialParametersFile(initial);
  } catch (const Error& e) {
    NS_THROW("{}: {}", m_project.path, e.what());
  }
  m_parameters.path = file;
  m_parameters.which = "initial";
  m_parameters.data = readCheckpoint(file);
  // The class names of the project's training data, when it has a classes.txt (Note [Run class names]).
  const DataSourceSpec& training = m_project.dataset.training;
  std::error_code ec;
  if (training.format == "csv" && !training.csv.empty()) {
    const fs::path names = classNamesPathFor(training.csv);
    if (fs::is_regular_file(names, ec)) {
      m_classNames = readClassNames(names);
      m_classNamesFile = names.string();
    }
  }
  if (m_classNames.empty()) m_classNames = training.classNames;  // dataset.class_names
}


void RunModel::checkFits(const Dataset& data) const {
  const Shape& in = m_graph->input().outputShape;
  NS_CHECK(numel(data.sampleShape) == numel(in), "{}: samples have shape {} but the run's Input '{}' expects {}", data.source,
           shapeToString(data.sampleShape), m_graph->input().id, shapeToString(in));
}

// Note [Device fallback]
// A run trained on GPUs is often evaluated or used elsewhere: a laptop, a CI machine. When no
// devices are given and one of the run's is a GPU this build or machine cannot use, prediction
// runs on cpu:0 instead and says so (Predictions::deviceNote): its numbers are the same model's
// (inference is deterministic per device; devices differ only in rounding). Devices given with
// --devices are used as given, and fail with the reason.
namespace {

// The first of `devices` this process cannot use, with why; empty when all can be.
std::string unusableDevice(const std::vector<std::string>& devices, std::string* why) {
  for (const std::string& id : devices) {
    const DeviceKind* kind = findDeviceKind(id);
    if (!kind) {
      *why = "this build has no backend for it";
      return id;
    }
    if (!kind->listDevices) continue;
    std::string reason;
    const std::vector<NumberedDevice> listed = kind->listDevices(&reason);
    const auto colon = id.find(':');
    const std::string ordinal = colon == std::string::npos ? "" : id.substr(colon + 1);
    if (!isDecimalIndex(ordinal) || ordinal.size() > 4 || std::stoul(ordinal) >= listed.size()) {
      *why = listed.empty() ? (reason.empty() ? "no such device here" : reason)
                            : format("this machine has {} of them", listed.size());
      return id;
    }
  }
  return {};
}

}  // namespace

Predictions RunModel::predict(const Dataset& data, std::vector<std::string> devices, int64_t block) const {
  checkFits(data);
  std::string deviceNote;
  if (devices.empty()) {
    devices = m_devices;
    std::string why;
    if (const std::string unusable = unusableDevice(devices, &why); !unusable.empty()) {
      std::string all;
      for (const auto& d : devices) all += (all.empty() ? "" : ",") + d;
      deviceNote = format("the run trained on {}, and {} cannot be used here ({}): running on cpu:0 instead "
                          "(--devices chooses the devices)",
                          all, unusable, why);
      devices = {"cpu:0"};
    }
  }
  // Contexts come from the devices' kind, as in training (engine/devices/device_factory.h).
  std::vector<const DeviceKind*> kinds;
  for (const auto& d : devices) kinds.push_back(&deviceKindOf(d));
  const int n = static_cast<int>(devices.size());
  // A sample's prediction must not depend on how many devices share the work: the thread count
  // of the kernels must not either (on some CPUs oneDNN's results do).
  const int threads = cpuThreadsPerWorker(m_project.parallel.threadsPerDevice, true, availableCores(), n);
  Predictions out;
  out.samples = data.size;
  out.width = numel(m_graph->prediction().outputShape);
  out.values.assign(static_cast<size_t>(out.samples * out.width), 0.0f);
  out.devices = devices;
  out.deviceNote = deviceNote;

  std::vector<std::unique_ptr<DeviceContext>> contexts(static_cast<size_t>(n));
  std::vector<std::unique_ptr<Network>> networks(static_cast<size_t>(n));
  {
    WorkerPool pool(devices, 60.0, {});
    const int64_t blocks = (data.size + block - 1) / block;
    pool.runOnAll([&](int w) {
      const auto i = static_cast<size_t>(w);
      DeviceOptions device;
      device.id = devices[i];
      device.threads = threads;
      device.precision = parsePrecision(m_project.config.precision);
      // Deterministic kernels (a GPU's cuDNN algorithms), so a sample's output does not depend on
      // which device computed it or when.
      device.deterministic = true;
      contexts[i] = kinds[i]->makeContext(device);
      networks[i] = std::make_unique<Network>(*m_graph, *contexts[i]);
      applyParameters(m_parameters, *networks[i]);
      const int64_t first = blocks * w / n, last = blocks * (w + 1) / n;
      Tensor x(contexts[i]->stagingAllocator()), y(contexts[i]->stagingAllocator());
      std::vector<int64_t> ids;
      for (int64_t b = first; b < last; ++b) {
        const int64_t start = b * block, count = std::min(block, data.size - start);
        ids.resize(static_cast<size_t>(count));
        for (int64_t k = 0; k < count; ++k) ids[static_cast<size_t>(k)] = start + k;
        gatherBatch(data, ids, x, y);
        // The loss needs a target of the right form; inference data may have no labels, so the
        // labels only feed the (unused) loss value: class 0 for every sample.
        y.resize(Shape{count, 1});
        y.zero();
        networks[i]->forward(x, y, false, RandomKey{m_project.config.seed, 0, 0, ids.data()});
        const Tensor& pred = networks[i]->prediction();
        std::memcpy(out.values.data() + start * out.width, pred.data(), static_cast<size_t>(count * out.width) * sizeof(float));
      }
    });
    // Networks and contexts belong to their worker's device and thread; free them there.
    pool.runOnAll([&](int w) {
      networks[static_cast<size_t>(w)].reset();
      contexts[static_cast<size_t>(w)].reset();
    });
  }
  return out;
}

}  // namespace netsmith
