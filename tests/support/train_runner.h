// Trains in this process through runTraining() (as netsmith-cli does) on a modified copy of a
// sample project, and records the events: for tests of the trainer's rules, threads and faults.
#pragma once

#include <QTemporaryDir>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/train/trainer.h"
#include "support/event_filter.h"

namespace netsmith::test {

using Json = nlohmann::json;

// A sample project (projects/<name>.nsproj) as JSON, to modify and save elsewhere; its dataset
// paths use ${DATASETS}, so the copy reads the same data.
inline Json sampleProject(const std::string& name) {
  std::ifstream in(std::string(NETSMITH_SOURCE_DIR) + "/projects/" + name + ".nsproj");
  return Json::parse(in);
}

// The Fashion-MNIST MLP sample with a smaller network — Input 1x28x28 -> Affine 64 -> ReLU ->
// Affine 10 -> SoftmaxCrossEntropy — for quick trainings of a solver or a device set.
inline Json smallFashionMlp() {
  Json project = sampleProject("fashion_mnist_mlp");
  Json nodes = Json::array();
  nodes.push_back({{"id", "x"}, {"type", "Input"}, {"params", {{"shape", {1, 28, 28}}}}});
  nodes.push_back({{"id", "fc1"}, {"type", "Affine"}, {"params", {{"n_outmaps", {64}}}}});
  nodes.push_back({{"id", "relu"}, {"type", "ReLU"}});
  nodes.push_back({{"id", "fc2"}, {"type", "Affine"}, {"params", {{"n_outmaps", {10}}}}});
  nodes.push_back({{"id", "loss"}, {"type", "SoftmaxCrossEntropy"}});
  Json links = Json::array();
  for (size_t i = 0; i + 1 < nodes.size(); ++i) links.push_back({{"from", nodes[i]["id"]}, {"to", nodes[i + 1]["id"]}});
  project["network"] = {{"nodes", nodes}, {"links", links}};
  return project;
}

inline std::string saveProject(const QTemporaryDir& dir, const std::string& name, const Json& project) {
  const std::string path = dir.filePath(QString::fromStdString(name + ".nsproj")).toStdString();
  std::ofstream(path) << project.dump(1);
  return path;
}

// Inserts a layer after node `after`, taking over its outgoing links.
inline void insertAfter(Json& project, const std::string& after, const std::string& id, const std::string& type,
                        const Json& params) {
  for (Json& link : project["network"]["links"])
    if (link["from"] == after) link["from"] = id;
  project["network"]["nodes"].push_back({{"id", id}, {"type", type}, {"params", params}, {"pos", {0, 0}}});
  project["network"]["links"].push_back({{"from", after}, {"to", id}});
}

inline std::string firstNodeOfType(const Json& project, const std::string& type) {
  for (const Json& n : project["network"]["nodes"])
    if (n["type"] == type) return n["id"];
  return "";
}

// Collects every event; onEvent (optional) sees each one as it is published, on the
// coordinating thread, and may use the run's RunControl.
class RecordedEvents final : public EventSink {
 public:
  std::function<void(const Json&)> onEvent;
  void publish(const Json& e) override {
    {
      std::lock_guard lock(m_mutex);
      m_events.push_back(e);
    }
    if (onEvent) onEvent(e);
  }
  std::vector<Json> ofKind(const std::string& kind) const {
    std::lock_guard lock(m_mutex);
    return eventsOfKind(m_events, kind);
  }
  Json last(const std::string& kind) const {
    std::lock_guard lock(m_mutex);
    return lastEventOfKind(m_events, kind);
  }
  std::vector<std::string> warnings() const {
    std::vector<std::string> out;
    for (const auto& e : ofKind("warning")) out.push_back(e.value("message", ""));
    return out;
  }

 private:
  mutable std::mutex m_mutex;
  std::vector<Json> m_events;
};

struct TrainedRun {
  TrainResult result;
  std::shared_ptr<RecordedEvents> events = std::make_shared<RecordedEvents>();
};

// Trains `projectPath` into a fresh run folder under `dir`. options' projectPath, runDir,
// events are filled in here; the rest is the caller's.
inline TrainedRun trainInProcess(const QTemporaryDir& dir, const std::string& projectPath, TrainOptions options,
                                 const std::function<void(const Json&, RunControl&)>& onEvent = {}) {
  static int runs = 0;
  TrainedRun run;
  RunControl control;
  EventBus bus;
  bus.add(run.events.get());
  if (onEvent) run.events->onEvent = [&](const Json& e) { onEvent(e, control); };
  options.projectPath = options.resumeRun.empty() ? projectPath : "";
  if (options.resumeRun.empty())
    options.runDir = dir.filePath(QString("run-%1").arg(++runs)).toStdString();
  options.events = &bus;
  options.control = &control;
  run.result = runTraining(options);
  run.events->onEvent = nullptr;
  return run;
}

}  // namespace netsmith::test
