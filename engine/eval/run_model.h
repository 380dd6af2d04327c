// RunModel: a trained run folder made ready to predict — its project snapshot, graph and chosen
// parameters — and predict(), which runs a dataset through the network on several devices at
// once with the data-parallel machinery (WorkerPool, one Network per device on its own thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/dataset.h"
#include "engine/eval/parameters_file.h"
#include "engine/project/graph.h"
#include "engine/project/project.h"

namespace netsmith {

// The network's outputs (before the output head) for every sample, in dataset order.
struct Predictions {
  int64_t samples = 0;
  int64_t width = 0;            // values per sample
  std::vector<float> values;    // (samples, width)
  std::vector<std::string> devices;  // the devices that ran
  const float* row(int64_t i) const { return values.data() + i * width; }
};

class RunModel {
 public:
  // Loads RUN/project.nsproj and the parameters ("last" or "best"). Error names the file.
  RunModel(const std::string& runDir, const std::string& which);

  const std::string& runDir() const { return m_runDir; }
  const Project& project() const { return m_project; }
  const Graph& graph() const { return *m_graph; }
  const RunParameters& parameters() const { return m_parameters; }
  // The devices the run trained on (run.json's --devices, else parallel.devices).
  const std::vector<std::string>& runDevices() const { return m_devices; }

  // Runs every sample of `data` through the network in inference mode. Workers take contiguous
  // runs of fixed blocks of `block` samples; each sample's output lands at its own index, so the
  // result is the same on any number of devices. devices empty: runDevices().
  Predictions predict(const Dataset& data, std::vector<std::string> devices = {}, int64_t block = 256) const;

  // Checks that the samples of `data` fit the Input layer; Error names the source and the shapes.
  void checkFits(const Dataset& data) const;

 private:
  std::string m_runDir;
  Project m_project;
  std::unique_ptr<Graph> m_graph;
  RunParameters m_parameters;
  std::vector<std::string> m_devices;
};

}  // namespace netsmith
