#include "gui/document/network_analysis.h"

#include <set>

#include "engine/core/error.h"

namespace netsmith::gui {

int NetworkAnalysis::problemCount() const {
  int n = static_cast<int>(networkProblems.size());
  for (const auto& [id, facts] : nodes) n += static_cast<int>(facts.problems.size());
  return n;
}

namespace {

// Producers of each node in port order, the way the engine fills ports (an explicit port, else the
// next free one in link order); -1 marks an unfilled port. Unknown ids are skipped (the validator
// reports them).
std::vector<std::vector<int>> producers(const NetworkSpec& spec, const std::map<std::string, int>& byId) {
  std::vector<std::vector<int>> inputs(spec.nodes.size());
  for (const LinkSpec& link : spec.links) {
    const auto from = byId.find(link.from), to = byId.find(link.to);
    if (from == byId.end() || to == byId.end() || from->second == to->second) continue;
    auto& ports = inputs[to->second];
    if (link.port) {
      if (*link.port < 0 || *link.port > 64) continue;
      if (static_cast<int>(ports.size()) <= *link.port) ports.resize(*link.port + 1, -1);
      if (ports[*link.port] == -1) ports[*link.port] = from->second;
    } else {
      auto free = std::find(ports.begin(), ports.end(), -1);
      if (free != ports.end()) *free = from->second;
      else ports.push_back(from->second);
    }
  }
  return inputs;
}

}  // namespace

NetworkAnalysis analyseNetwork(const NetworkSpec& spec, const OpRegistry& registry) {
  NetworkAnalysis a;
  const int n = static_cast<int>(spec.nodes.size());
  std::map<std::string, int> byId;
  for (int i = 0; i < n; ++i) {
    byId.emplace(spec.nodes[i].id, i);
    a.nodes[spec.nodes[i].id];
  }

  std::vector<GraphProblem> problems;
  try {
    problems = checkNetwork(spec, registry);
  } catch (const std::exception& e) {
    problems.push_back({"", "", e.what()});
  }
  a.valid = problems.empty();
  for (const auto& p : problems) {
    if (!p.nodeId.empty() && a.nodes.count(p.nodeId)) a.nodes[p.nodeId].problems.push_back(p.message);
    else a.networkProblems.push_back(p.text());
  }

  // Shapes: repeatedly settle every node whose producers are all settled; a node gets a shape
  // only when all its producers have one (a cycle simply leaves its nodes unsettled).
  const auto inputs = producers(spec, byId);
  std::vector<bool> settled(n, false), hasShape(n, false);
  std::vector<Shape> shapes(n);
  for (bool progress = true; progress;) {
    progress = false;
    for (int i = 0; i < n; ++i) {
      if (settled[i]) continue;
      const auto& ports = inputs[i];
      bool ready = true, inputsKnown = true;
      for (int p : ports) {
        ready = ready && p >= 0 && settled[p];
        inputsKnown = inputsKnown && p >= 0 && hasShape[p];
      }
      if (!ready) continue;
      settled[i] = true;
      progress = true;
      const NodeSpec& node = spec.nodes[i];
      const OpSchema* schema = registry.find(node.type);
      if (!schema || !inputsKnown) continue;
      const size_t want = schema->inputs.size();
      if (schema->variadic ? ports.size() < std::max<size_t>(want, 1) : ports.size() != want) continue;
      std::vector<Shape> in;
      for (int p : ports) in.push_back(shapes[p]);
      try {
        const Json params = validateParams(*schema, node.params, "params");
        const OpParams view(params);
        Shape out = schema->inferShape(in, view);
        for (int64_t d : out)
          if (d < 1) throw Error("empty axis");
        int64_t count = 0;
        if (schema->parameterBlobs)
          for (const ParamBlob& blob : schema->parameterBlobs(in, view))
            if (blob.trainable) count += numel(blob.shape);
        NodeFacts& facts = a.nodes[node.id];
        facts.outputShape = out;
        facts.parameterCount = count;
        facts.multiplyAdds = schema->multiplyAdds ? schema->multiplyAdds(in, out, view) : 0;
        shapes[i] = std::move(out);
        hasShape[i] = true;
        a.parameterCount += facts.parameterCount;
        a.multiplyAdds += facts.multiplyAdds;
      } catch (const std::exception&) {
        // The validator has already said what is wrong with this node; it just has no shape.
      }
    }
  }
  return a;
}

}  // namespace netsmith::gui
