// Graph: a validated network — nodes in topological order with their inputs, per-sample output
// shapes, parameter blobs and parameter counts. Built from a NetworkSpec and the op registry.
#pragma once

#include <string>
#include <vector>

#include "engine/op_interface/op_registry.h"
#include "engine/project/project.h"

namespace netsmith {

struct GraphNode {
  std::string id;
  const OpSchema* schema = nullptr;
  Json params;                 // validated, defaults filled
  std::vector<int> inputs;     // indices (into Graph::nodes) of the producers, in port order
  std::vector<Shape> inputShapes;
  Shape outputShape;           // per sample
  std::vector<ParamBlob> blobs;
  int64_t parameterCount = 0;  // trainable values
  int64_t multiplyAdds = 0;    // per sample
  int specIndex = 0;           // index in NetworkSpec::nodes (for JSON paths in messages)
  bool frozen = false;         // Note [Frozen layers]
  double lrMult = 1.0;
  // Its trainable blobs get gradients and optimizer updates: not frozen, and lr_mult > 0.
  bool learns() const { return !frozen && lrMult > 0; }
};

struct Graph {
  std::vector<GraphNode> nodes;  // topological order: every producer before its consumers
  int inputNode = -1;            // the single Input node
  int lossNode = -1;             // the single loss node (no consumers)
  int64_t parameterCount = 0;
  int64_t multiplyAdds = 0;

  const GraphNode& input() const { return nodes[inputNode]; }
  const GraphNode& loss() const { return nodes[lossNode]; }
  // The node whose output the loss reads: the network's prediction.
  const GraphNode& prediction() const { return nodes[nodes[lossNode].inputs.at(0)]; }
};

// Note [Frozen layers]
// A node's "frozen": true (NodeSpec::frozen) holds its parameters as they are while the rest of
// the network trains (transfer learning: the early layers of an imported model). Network gives
// its blobs no gradient tensors, so the optimizer keeps no state for them and the all-reduce does
// not carry them (Replica builds both from the blobs that have a gradient); they stay bit for
// bit what the initialisers or config.initial_parameters gave. A frozen BatchNormalization
// normalises with its running statistics and does not update them (its forward runs in
// inference mode), so those are held too. Backward still runs through a frozen layer when a layer
// before it learns (its input gradient is needed), and skips it when nothing before it learns.
// "lr_mult" (>= 0, default 1) multiplies the learning rate of the layer's parameters (each blob's
// update in the optimizer); 0 means not updated: like frozen, no gradients and no optimizer state,
// but a BatchNormalization still updates its running statistics. Both apply only to layers with
// parameters: on another layer they are a problem of the network.

// One problem found in a network, tied to a node where there is one (GUI marks it in red).
struct GraphProblem {
  std::string nodeId;    // empty: about the network as a whole
  std::string jsonPath;  // e.g. "network.nodes[3].params.kernel" or "network.links[2]"
  std::string message;   // a sentence that says what to change
  std::string text() const { return jsonPath.empty() ? message : jsonPath + ": " + message; }
};

// Checks the whole network and returns every problem found (empty: valid): unknown types,
// bad parameters, duplicate ids, dangling links, wrong input counts, cycles, shape errors,
// not exactly one Input, not exactly one loss at the end.
std::vector<GraphProblem> checkNetwork(const NetworkSpec& spec, const OpRegistry& registry);

// Builds the graph; throws Error with the first problem's text if the network is not valid.
Graph buildGraph(const NetworkSpec& spec, const OpRegistry& registry);

}  // namespace netsmith
