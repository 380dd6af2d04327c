#include "engine/project/graph.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/core/error.h"

namespace netsmith {
namespace {

std::string nodePath(int i) { return format("network.nodes[{}]", i); }
std::string linkPath(int i) { return format("network.links[{}]", i); }

// The per-node facts checkNetwork() works out, kept so buildGraph() need not redo them.
struct NodeState {
  const OpSchema* schema = nullptr;
  Json params;
  std::vector<int> inputs;  // spec indices, -1 for an unfilled port
  std::vector<int> consumers;
  bool paramsOk = false;
  bool shapeOk = false;
  Shape shape;
  std::vector<ParamBlob> blobs;
  int64_t multiplyAdds = 0;
};

struct Analysis {
  std::vector<NodeState> nodes;
  std::vector<int> order;  // spec indices, topological
  std::vector<GraphProblem> problems;
};

Analysis analyse(const NetworkSpec& spec, const OpRegistry& registry) {
  Analysis a;
  auto problem = [&](const std::string& nodeId, const std::string& path, const std::string& message) {
    a.problems.push_back({nodeId, path, message});
  };
  const int n = static_cast<int>(spec.nodes.size());
  a.nodes.resize(n);
  if (n == 0) {
    problem("", "network.nodes", "the network is empty: add an Input, some layers and a loss");
    return a;
  }

  std::map<std::string, int> byId;
  for (int i = 0; i < n; ++i) {
    const NodeSpec& node = spec.nodes[i];
    auto [it, inserted] = byId.emplace(node.id, i);
    if (!inserted) problem(node.id, nodePath(i) + ".id", format("id '{}' is already used by network.nodes[{}]", node.id, it->second));
    try {
      a.nodes[i].schema = &registry.get(node.type);
    } catch (const Error& e) {
      problem(node.id, nodePath(i) + ".type", e.what());
      continue;
    }
    try {
      a.nodes[i].params = validateParams(*a.nodes[i].schema, node.params, nodePath(i) + ".params");
      a.nodes[i].paramsOk = true;
    } catch (const Error& e) {
      const std::string msg = e.what();
      const auto colon = msg.find(": ");
      problem(node.id, colon == std::string::npos ? nodePath(i) + ".params" : msg.substr(0, colon),
              colon == std::string::npos ? msg : msg.substr(colon + 2));
    }
  }

  // Links fill input ports: an explicit port, else the next free one in link order.
  for (int j = 0; j < static_cast<int>(spec.links.size()); ++j) {
    const LinkSpec& link = spec.links[j];
    const auto from = byId.find(link.from);
    const auto to = byId.find(link.to);
    if (from == byId.end()) {
      problem("", linkPath(j) + ".from", format("no node has id '{}'", link.from));
      continue;
    }
    if (to == byId.end()) {
      problem("", linkPath(j) + ".to", format("no node has id '{}'", link.to));
      continue;
    }
    if (from->second == to->second) {
      problem(link.to, linkPath(j), format("'{}' is linked to itself", link.to));
      continue;
    }
    NodeState& target = a.nodes[to->second];
    auto& ports = target.inputs;
    if (link.port) {
      if (*link.port < 0 || *link.port > 64) {
        problem(link.to, linkPath(j) + ".port", format("expected a port index in [0, 64], got {}", *link.port));
        continue;
      }
      if (static_cast<int>(ports.size()) <= *link.port) ports.resize(*link.port + 1, -1);
      if (ports[*link.port] != -1) {
        problem(link.to, linkPath(j) + ".port", format("port {} of '{}' is already linked", *link.port, link.to));
        continue;
      }
      ports[*link.port] = from->second;
    } else {
      auto freePort = std::find(ports.begin(), ports.end(), -1);
      if (freePort != ports.end()) *freePort = from->second;
      else ports.push_back(from->second);
    }
    a.nodes[from->second].consumers.push_back(to->second);
  }

  // Input counts.
  std::vector<bool> portsOk(n, false);
  for (int i = 0; i < n; ++i) {
    const NodeState& s = a.nodes[i];
    if (!s.schema) continue;
    const auto& id = spec.nodes[i].id;
    const int have = static_cast<int>(s.inputs.size());
    const int want = static_cast<int>(s.schema->inputs.size());
    if (std::find(s.inputs.begin(), s.inputs.end(), -1) != s.inputs.end()) {
      problem(id, nodePath(i), format("{} '{}' has an unlinked input port before a linked one", s.schema->name, id));
    } else if (s.schema->variadic ? have < std::max(want, 1) : have != want) {
      if (want == 0)
        problem(id, nodePath(i), format("{} '{}' takes no input, but {} link(s) lead into it", s.schema->name, id, have));
      else if (have == 0)
        problem(id, nodePath(i), format("{} '{}' has no input: link a layer into it", s.schema->name, id));
      else
        problem(id, nodePath(i), format("{} '{}' takes {}{} input(s), got {}", s.schema->name, id,
                                        s.schema->variadic ? "at least " : "", want, have));
    } else {
      portsOk[i] = true;
    }
  }

  // Topological order (Kahn, ties broken by spec order so the order is stable).
  std::vector<int> indegree(n, 0);
  for (int i = 0; i < n; ++i)
    for (int p : a.nodes[i].inputs)
      if (p >= 0) ++indegree[i];
  std::set<int> ready;
  for (int i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.insert(i);
  while (!ready.empty()) {
    const int i = *ready.begin();
    ready.erase(ready.begin());
    a.order.push_back(i);
    for (int c : a.nodes[i].consumers)
      if (--indegree[c] == 0) ready.insert(c);
  }
  if (static_cast<int>(a.order.size()) != n) {
    std::string cycle;
    for (int i = 0; i < n; ++i)
      if (indegree[i] > 0) cycle += (cycle.empty() ? "'" : ", '") + spec.nodes[i].id + "'";
    problem("", "network.links", format("the links form a cycle through {}: a network must flow one way, from the Input to the loss", cycle));
    return a;
  }

  // Shapes, in topological order; a node is skipped when an input has no shape.
  for (int i : a.order) {
    NodeState& s = a.nodes[i];
    if (!s.schema || !s.paramsOk || !portsOk[i]) continue;
    std::vector<Shape> inShapes;
    bool inputsOk = true;
    for (int p : s.inputs) {
      inputsOk = inputsOk && a.nodes[p].shapeOk;
      if (inputsOk) inShapes.push_back(a.nodes[p].shape);
    }
    if (!inputsOk) continue;
    const OpParams params(s.params);
    try {
      s.shape = s.schema->inferShape(inShapes, params);
      for (int64_t d : s.shape)
        NS_CHECK(d >= 1, "the output shape {} has an empty axis", shapeToString(s.shape));
      NS_CHECK(numel(s.shape) <= (int64_t{1} << 31), "the output shape {} has more than 2^31 values per sample",
               shapeToString(s.shape));
      if (s.schema->parameterBlobs) s.blobs = s.schema->parameterBlobs(inShapes, params);
      if (s.schema->multiplyAdds) s.multiplyAdds = s.schema->multiplyAdds(inShapes, s.shape, params);
      s.shapeOk = true;
    } catch (const Error& e) {
      std::string inputs;
      for (const auto& sh : inShapes) inputs += (inputs.empty() ? "" : " and ") + shapeToString(sh);
      problem(spec.nodes[i].id, nodePath(i),
              format("{} '{}'{}: {}", s.schema->name, spec.nodes[i].id, inputs.empty() ? "" : " (input " + inputs + ")", e.what()));
    }
  }

  // Note [Frozen layers]: only layers with trainable parameters can be frozen or given an lr_mult.
  for (int i = 0; i < n; ++i) {
    const NodeState& s = a.nodes[i];
    const NodeSpec& node = spec.nodes[i];
    if (!s.schema || !s.shapeOk || (!node.frozen && node.lrMult == 1.0)) continue;
    const bool trainable = std::any_of(s.blobs.begin(), s.blobs.end(), [](const ParamBlob& b) { return b.trainable; });
    if (!trainable)
      problem(node.id, nodePath(i) + (node.frozen ? ".frozen" : ".lr_mult"),
              format("{} '{}' has no parameters to {}: remove \"{}\" from it", s.schema->name, node.id,
                     node.frozen ? "freeze" : "give a learning-rate multiplier", node.frozen ? "frozen" : "lr_mult"));
  }

  // Exactly one Input and one loss, the loss at the end, nothing left dangling.
  std::vector<int> inputs, losses;
  for (int i = 0; i < n; ++i) {
    if (!a.nodes[i].schema) continue;
    if (a.nodes[i].schema->isInput) inputs.push_back(i);
    if (a.nodes[i].schema->isLoss()) losses.push_back(i);
  }
  // Without a loss every chain ends dangling; the missing loss is the one thing to say then.
  for (int i = 0; i < n && !losses.empty(); ++i) {
    const NodeState& s = a.nodes[i];
    if (!s.schema) continue;
    if (s.schema->isLoss()) {
      if (!s.consumers.empty())
        problem(spec.nodes[i].id, nodePath(i), format("the loss '{}' must be the last layer, but its output is linked onward", spec.nodes[i].id));
    } else if (s.consumers.empty()) {
      problem(spec.nodes[i].id, nodePath(i), format("the output of '{}' is not used: link it to a layer or delete it", spec.nodes[i].id));
    }
  }
  if (inputs.empty()) problem("", "network.nodes", "the network has no Input layer: add one with the shape of a sample");
  if (inputs.size() > 1)
    problem(spec.nodes[inputs[1]].id, nodePath(inputs[1]),
            format("the network has {} Input layers ('{}' and '{}'); this version trains networks with exactly one", inputs.size(),
                   spec.nodes[inputs[0]].id, spec.nodes[inputs[1]].id));
  if (losses.empty()) problem("", "network.nodes", "the network has no loss layer: end it with a loss such as SoftmaxCrossEntropy");
  if (losses.size() > 1)
    problem(spec.nodes[losses[1]].id, nodePath(losses[1]),
            format("the network has {} loss layers ('{}' and '{}'); it must have exactly one", losses.size(),
                   spec.nodes[losses[0]].id, spec.nodes[losses[1]].id));
  return a;
}

}  // namespace

std::vector<GraphProblem> checkNetwork(const NetworkSpec& spec, const OpRegistry& registry) {
  return analyse(spec, registry).problems;
}

Graph buildGraph(const NetworkSpec& spec, const OpRegistry& registry) {
  Analysis a = analyse(spec, registry);
  if (!a.problems.empty()) throw Error(a.problems.front().text());

  Graph g;
  std::vector<int> position(spec.nodes.size(), -1);
  for (int i : a.order) {
    NodeState& s = a.nodes[i];
    GraphNode node;
    node.id = spec.nodes[i].id;
    node.schema = s.schema;
    node.params = std::move(s.params);
    node.specIndex = i;
    node.frozen = spec.nodes[i].frozen;
    node.lrMult = spec.nodes[i].lrMult;
    for (int p : s.inputs) {
      node.inputs.push_back(position[p]);
      node.inputShapes.push_back(a.nodes[p].shape);
    }
    node.outputShape = s.shape;
    node.blobs = std::move(s.blobs);
    for (const auto& b : node.blobs)
      if (b.trainable) node.parameterCount += numel(b.shape);
    node.multiplyAdds = s.multiplyAdds;
    g.parameterCount += node.parameterCount;
    g.multiplyAdds += node.multiplyAdds;
    position[i] = static_cast<int>(g.nodes.size());
    if (s.schema->isInput) g.inputNode = position[i];
    if (s.schema->isLoss()) g.lossNode = position[i];
    g.nodes.push_back(std::move(node));
  }
  return g;
}

}  // namespace netsmith
