// RunModel: a trained run folder — or a project with initial parameters (an imported model) —
// made ready to predict: its project, graph and chosen parameters, and predict(), which runs a
// dataset through the network on several devices at once with the data-parallel machinery
// (WorkerPool, one Network per device on its own thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/dataset.h"
#include "engine/model/parameters_file.h"
#include "engine/project/graph.h"
#include "engine/project/project.h"

namespace netsmith {

// The network's outputs (before the output head) for every sample, in dataset order.
struct Predictions {
  int64_t samples = 0;
  int64_t width = 0;            // values per sample
  std::vector<float> values;    // (samples, width)
  std::vector<std::string> devices;  // the devices that ran
  // Set when the run's devices could not be used here and cpu:0 ran instead (Note [Device fallback]).
  std::string deviceNote;
  const float* row(int64_t i) const { return values.data() + i * width; }
};

class RunModel {
 public:
  // Loads RUN/project.nsproj and the parameters ("last" or "best"). Error names the file.
  // Given a project file (.nsproj) instead of a run folder, loads it with the parameters its
  // config.initial_parameters names (which is then "initial"; "last" is taken to mean them too):
  // `infer PROJECT.nsproj` runs an imported model before any training. runDir() is then the
  // project's folder.
  RunModel(const std::string& runDir, const std::string& which);
  // True when made from a project file rather than a run folder.
  bool fromProject() const { return m_fromProject; }

  const std::string& runDir() const { return m_runDir; }
  const Project& project() const { return m_project; }
  const Graph& graph() const { return *m_graph; }
  const RunParameters& parameters() const { return m_parameters; }
  // The devices the run trained on (run.json's --devices, else parallel.devices).
  const std::vector<std::string>& runDevices() const { return m_devices; }
  // The run's class names (Note [Run class names]); empty when its classes are unnamed.
  const std::vector<std::string>& classNames() const { return m_classNames; }
  // The classes.txt they were read from; empty when unnamed.
  const std::string& classNamesFile() const { return m_classNamesFile; }

  // Runs every sample of `data` through the network in inference mode. Workers take contiguous
  // runs of fixed blocks of `block` samples; each sample's output lands at its own index, so the
  // result is the same on any number of devices. devices empty: runDevices(), or cpu:0 where this
  // machine cannot use them (Note [Device fallback]).
  Predictions predict(const Dataset& data, std::vector<std::string> devices = {}, int64_t block = 256) const;

  // Checks that the samples of `data` fit the Input layer; Error names the source and the shapes.
  void checkFits(const Dataset& data) const;

 private:
  void loadProjectFile(const std::string& path, const std::string& which);

  std::string m_runDir;
  bool m_fromProject = false;
  Project m_project;
  std::unique_ptr<Graph> m_graph;
  RunParameters m_parameters;
  std::vector<std::string> m_devices;
  std::vector<std::string> m_classNames;
  std::string m_classNamesFile;
};

}  // namespace netsmith
