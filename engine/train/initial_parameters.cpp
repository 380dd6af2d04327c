#include "engine/train/initial_parameters.h"

#include <filesystem>
#include <map>

#include "engine/core/error.h"

namespace netsmith {

CheckpointData readInitialParameters(const std::string& path, const Graph& graph) {
  NS_CHECK(std::filesystem::is_regular_file(path),
           "config.initial_parameters: {} does not exist: import the model again, or correct the path", path);
  CheckpointData data = readCheckpoint(path);
  std::map<std::string, const Tensor*> byName;
  for (const auto& [name, tensor] : data.tensors) byName[name] = &tensor;
  for (const GraphNode& node : graph.nodes)
    for (const ParamBlob& blob : node.blobs) {
      const std::string name = node.id + "/" + blob.name;
      const auto it = byName.find(name);
      NS_CHECK(it != byName.end(),
               "config.initial_parameters: {} has no parameter '{}' for layer '{}' ({}, {} of shape ({})): every layer's "
               "parameters must be in the file",
               path, name, node.id, node.schema->name, blob.name, shapeToString(blob.shape));
      NS_CHECK(it->second->shape() == blob.shape,
               "config.initial_parameters: {}: layer '{}' ({}) has {} of shape ({}) but the file's '{}' has shape ({})", path,
               node.id, node.schema->name, blob.name, shapeToString(blob.shape), name,
               shapeToString(it->second->shape()));
      byName.erase(it);
    }
  NS_CHECK(byName.empty(), "config.initial_parameters: {} holds '{}', which no layer of the network has", path,
           byName.empty() ? "" : byName.begin()->first);
  return data;
}

void applyInitialParameters(const CheckpointData& parameters, Network& network) {
  std::map<std::string, const Tensor*> byName;
  for (const auto& [name, tensor] : parameters.tensors) byName[name] = &tensor;
  for (ParameterRef& p : network.parameters()) {
    const auto it = byName.find(p.name);
    NS_CHECK(it != byName.end() && it->second->shape() == p.value->shape(),
             "internal: initial parameters were not checked against the network ({})", p.name);
    p.value->copyFrom(*it->second);
  }
}

}  // namespace netsmith
