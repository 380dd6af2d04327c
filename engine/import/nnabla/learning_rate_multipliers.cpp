#include "engine/import/nnabla/learning_rate_multipliers.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "engine/core/error.h"

namespace netsmith::nnabla_import {

namespace {

// Whether the parameter `name` (after repeat expansion) is the one `pattern` names: the same
// text, where each "{...}" of the pattern stands for "_" and digits (a repeat copy's suffix).
bool namesParameter(const std::string& pattern, const std::string& name) {
  size_t p = 0, n = 0;
  while (p < pattern.size()) {
    if (pattern[p] == '{') {
      const size_t close = pattern.find('}', p);
      if (close == std::string::npos) return pattern.substr(p) == name.substr(n);
      if (n >= name.size() || name[n] != '_') return false;
      size_t digits = n + 1;
      while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
      if (digits == n + 1) return false;
      n = digits;
      p = close + 1;
      continue;
    }
    if (n >= name.size() || name[n] != pattern[p]) return false;
    ++p;
    ++n;
  }
  return n == name.size();
}

// The multiplier the optimizer gives `parameter`: the exact entry, else a repeat pattern's; 1
// when none lists it.
double multiplierOf(const NnOptimizer& optimizer, const std::string& parameter) {
  std::optional<double> byPattern;
  for (const NnVariableRef& v : optimizer.parameterVariables) {
    if (!v.hasMultiplier) continue;
    if (v.variable == parameter) return v.learningRateMultiplier;
    if (!byPattern && v.variable.find('{') != std::string::npos && namesParameter(v.variable, parameter))
      byPattern = v.learningRateMultiplier;
  }
  return byPattern.value_or(1.0);
}

}  // namespace

std::vector<std::string> mapLearningRateMultipliers(
    const NnOptimizer& optimizer, const Graph& graph,
    const std::map<std::string, std::vector<std::pair<std::string, std::string>>>& sources, NetworkSpec& network) {
  std::vector<std::string> notMapped;
  for (const GraphNode& g : graph.nodes) {
    const auto src = sources.find(g.id);
    if (src == sources.end()) continue;
    std::vector<std::pair<std::string, double>> multipliers;  // trainable blob's parameter → multiplier
    for (const ParamBlob& b : g.blobs) {
      if (!b.trainable) continue;  // BatchNormalization's running statistics
      const auto it = std::find_if(src->second.begin(), src->second.end(), [&](const auto& x) { return x.first == b.name; });
      if (it == src->second.end()) continue;
      multipliers.emplace_back(it->second, multiplierOf(optimizer, it->second));
    }
    if (multipliers.empty()) continue;
    const double m = multipliers.front().second;
    const bool same = std::all_of(multipliers.begin(), multipliers.end(), [&](const auto& x) { return x.second == m; });
    if (same && m == 1) continue;
    if (!same || m < 0) {
      std::string each;
      for (const auto& [name, value] : multipliers) each += format("{}'{}' {}", each.empty() ? "" : ", ", name, value);
      notMapped.push_back(format("learning_rate_multiplier of layer '{}': {} ({}; the layer trains at the solver's rate)", g.id,
                                 each, same ? "a negative multiplier" : "one lr_mult per Netsmith layer"));
      continue;
    }
    for (NodeSpec& node : network.nodes)
      if (node.id == g.id) node.lrMult = m;
  }
  return notMapped;
}

}  // namespace netsmith::nnabla_import
