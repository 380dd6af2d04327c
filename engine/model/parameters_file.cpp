#include "engine/model/parameters_file.h"

#include <filesystem>
#include <map>

#include "engine/core/error.h"

namespace fs = std::filesystem;

namespace netsmith {

RunParameters readRunParameters(const std::string& runDir, const std::string& which) {
  RunParameters out;
  out.which = which;
  const fs::path dir(runDir);
  if (which == "best") {
    out.path = (dir / "best.nsparams").string();
    NS_CHECK(fs::exists(out.path),
             "{}: missing: the run kept no best-epoch parameters (config.save_best false, no validation set, or trained "
             "before save_best existed); use --parameters last",
             out.path);
    out.data = readCheckpoint(out.path);
    return out;
  }
  NS_CHECK(which == "last", "--parameters: expected 'last' or 'best', got '{}'", which);
  out.path = (dir / "parameters.nsparams").string();
  if (fs::exists(out.path)) {
    out.data = readCheckpoint(out.path);
    return out;
  }
  // A stopped run has no final parameters yet; its newest checkpoint holds the latest ones — the
  // weights' average in their place when it has one (Note [Weight averaging], engine/optim/weight_average.h),
  // as the run would have written it.
  const auto newest = newestValidCheckpoint((dir / "checkpoints").string());
  NS_CHECK(newest.has_value(), "{}: missing, and {} holds no valid checkpoint: has this run trained at all?", out.path,
           (dir / "checkpoints").string());
  out.path = *newest;
  CheckpointData ckpt = readCheckpoint(*newest);
  out.data.meta = ckpt.meta;
  std::map<std::string, Tensor*> averages;
  for (auto& [name, tensor] : ckpt.tensors)
    if (name.rfind("ema/", 0) == 0) averages[name.substr(4)] = &tensor;
  for (auto& [name, tensor] : ckpt.tensors) {
    if (name.rfind("param/", 0) != 0) continue;
    const auto average = averages.find(name.substr(6));
    out.data.tensors.emplace_back(name.substr(6), std::move(average != averages.end() ? *average->second : tensor));
  }
  return out;
}

void applyParameters(const RunParameters& params, Network& network) {
  std::map<std::string, Tensor*> byName;
  for (auto& p : network.parameters()) byName[p.name] = p.value;
  for (const auto& [name, tensor] : params.data.tensors) {
    const auto it = byName.find(name);
    NS_CHECK(it != byName.end(), "{}: holds parameter '{}' which the run's network does not have", params.path, name);
    NS_CHECK(it->second->shape() == tensor.shape(), "{}: parameter '{}' has shape {}, the network expects {}", params.path,
             name, shapeToString(tensor.shape()), shapeToString(it->second->shape()));
    it->second->copyFrom(tensor);
    byName.erase(it);
  }
  NS_CHECK(byName.empty(), "{}: lacks parameter '{}' of the run's network", params.path,
           byName.empty() ? "" : byName.begin()->first);
}

void writeParametersFile(const std::string& path, Network& network, Json meta) {
  CheckpointData data;
  data.meta = std::move(meta);
  data.meta["format"] = "netsmith-parameters";
  data.meta["parameters_sha256"] = parametersSha256(network.parameters());
  for (auto& p : network.parameters()) data.tensors.emplace_back(p.name, p.value->clone());
  writeCheckpoint(path, data);
}

}  // namespace netsmith
