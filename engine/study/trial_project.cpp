#include "engine/study/trial_project.h"

#include "engine/core/error.h"
#include "engine/optim/optimizer.h"

namespace netsmith::study {

namespace {

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const auto& p : parts) NS_CHECK(!p.empty(), "{}: an empty part in the key", path);
  return parts;
}

void setLayerParameter(Json& project, const std::string& path, const std::vector<std::string>& parts, const Json& value) {
  NS_CHECK(parts.size() == 3, "{}: a layer's parameter is network.BLOCK.FIELD, such as network.conv1.outmaps", path);
  Json& nodes = project["network"]["nodes"];
  std::string names;
  for (Json& node : nodes) {
    const std::string id = node.value("id", "");
    if (id != parts[1]) {
      names += (names.empty() ? "" : ", ") + id;
      continue;
    }
    Json& params = node["params"];
    if (!params.is_object()) params = Json::object();
    Json& field = params[parts[2]];
    if (field.is_array() && !field.empty() && value.is_number()) {
      for (Json& element : field) element = value;
    } else {
      field = value;
    }
    return;
  }
  NS_THROW("{}: the network has no block '{}' (its blocks: {})", path, parts[1], names);
}

// Another solver keeps the optimizer settings it shares with the old one (weight_decay, a learning
// rate of the same name) and drops the old one's own, which it would refuse: its defaults apply.
void switchSolver(Json& optimizer, const Json& solver) {
  NS_CHECK(solver.is_string(), "optimizer.solver: expected a solver's name, got {}", solver.dump());
  for (const std::string& key :
       Optimizer::hyperParametersDroppedBySwitch(optimizer.value("solver", ""), solver.get<std::string>()))
    optimizer.erase(key);
  optimizer["solver"] = solver;
}

}  // namespace

void setProjectValue(Json& project, const std::string& path, const Json& value) {
  const auto parts = splitPath(path);
  if (path == "optimizer.solver" && project["optimizer"].is_object()) {
    switchSolver(project["optimizer"], value);
    return;
  }
  if (parts.front() == "network") {
    setLayerParameter(project, path, parts, value);
    return;
  }
  Json* node = &project;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    Json& next = (*node)[parts[i]];
    NS_CHECK(next.is_object(), "{}: '{}' is not a section of the project", path, parts[i]);
    node = &next;
  }
  (*node)[parts.back()] = value;
}

}  // namespace netsmith::study
