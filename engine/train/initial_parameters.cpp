#include "engine/train/initial_parameters.h"

#include <filesystem>
#include <map>

#include "engine/core/error.h"

namespace netsmith {

namespace fs = std::filesystem;

std::string initialParametersFile(const std::string& source) {
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    for (const char* name : {"parameters.nsparams", "best.nsparams"}) {
      const fs::path file = fs::path(source) / name;
      if (fs::is_regular_file(file, ec)) return file.string();
    }
    NS_THROW("config.initial_parameters: the folder {} has no parameters.nsparams or best.nsparams: give a run folder "
             "that finished an epoch, or a .nsparams file",
             source);
  }
  NS_CHECK(fs::is_regular_file(source, ec),
           "config.initial_parameters: {} does not exist: import the model again, or correct the path", source);
  return source;
}

InitialParameters readInitialParameters(const std::string& source, const Graph& graph) {
  InitialParameters out;
  out.report.source = source;
  out.report.file = initialParametersFile(source);
  CheckpointData file = readCheckpoint(out.report.file);
  std::map<std::string, Tensor*> byName;
  for (auto& [name, tensor] : file.tensors) byName[name] = &tensor;
  out.data.meta = file.meta;
  for (const GraphNode& node : graph.nodes) {
    if (node.blobs.empty()) continue;
    protocol::InitialParametersReport::Layer layer;
    layer.id = node.id;
    layer.type = node.schema->name;
    for (const ParamBlob& blob : node.blobs) {
      const std::string name = node.id + "/" + blob.name;
      const auto it = byName.find(name);
      if (it == byName.end()) {
        layer.fresh.push_back(blob.name);
      } else if (it->second->shape() != blob.shape) {
        layer.reshaped.push_back({blob.name, blob.shape, it->second->shape()});
        byName.erase(it);
      } else {
        layer.loaded.push_back(blob.name);
        out.data.tensors.emplace_back(name, std::move(*it->second));
        byName.erase(it);
      }
    }
    out.report.layers.push_back(std::move(layer));
  }
  // What is left no layer has; in the file's order.
  for (const auto& [name, tensor] : file.tensors)
    if (byName.count(name)) out.report.unused.push_back({name, tensor.shape()});
  return out;
}

// Straight into the tensors the kernels use (Note [Device memory]): through the host view, a later
// parameters() call (the replicas' check at the start) would download the device's values over the
// copies before the next forward uploaded them, and a GPU replica would keep its initialisers'.
void applyInitialParameters(const InitialParameters& parameters, Network& network) {
  std::map<std::string, const Tensor*> byName;
  for (const auto& [name, tensor] : parameters.data.tensors) byName[name] = &tensor;
  for (const ParameterRef& p : network.kernelParameters()) {
    const auto it = byName.find(p.name);
    if (it == byName.end()) continue;  // new or re-initialised: the initialisers' values stay
    NS_CHECK(it->second->shape() == p.value->shape(), "internal: initial parameter {} was not checked against the network",
             p.name);
    network.device().upload(p.value->data(), it->second->data(), p.value->size());
  }
  network.device().synchronize();  // the file's tensors may go once this returns
}

}  // namespace netsmith
