// What the Edit page shows about a network besides its drawing: each block's inferred output
// shape, parameter count and multiply-adds, the validator's problems tied to their blocks, and the
// network totals. Worked out by the engine's registry (shape inference, parameter blobs) and
// checkNetwork(); nothing here knows a layer type by name. Problems are worded for a person: a
// block's problem about a parameter names the field ("field 'Kernel': expected 2 integers"), other
// JSON paths become the block or link they point at ("Link x → ghost: no node has id 'ghost'").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"

namespace netsmith::gui {

struct NodeFacts {
  std::optional<Shape> outputShape;  // absent when it cannot be inferred (a problem upstream)
  int64_t parameterCount = 0;
  int64_t multiplyAdds = 0;
  std::vector<std::string> problems;  // sentences from the validator about this node
  // Input ports to draw: the op's inputs; a variadic op (Concatenate) one more than it has linked,
  // so there is always a free port to link to.
  int inputPorts = 0;
};

struct NetworkAnalysis {
  std::map<std::string, NodeFacts> nodes;   // by node id
  std::vector<std::string> networkProblems; // problems about no node in particular
  int64_t parameterCount = 0;               // over the nodes whose shapes are known
  int64_t multiplyAdds = 0;
  bool valid = false;                       // checkNetwork() found nothing
  // The input port of its target each link fills (spec.links order), as the engine fills them (an
  // explicit port, else the next free one in link order); -1: the link fills none (a dangling end).
  std::vector<int> linkPorts;

  int problemCount() const;
};

// One sample of the project's training data, for the check of an input block's shape.
struct DatasetSamples {
  Shape shape;         // e.g. {1, 28, 28}
  std::string source;  // the file it was read from, for the sentence
  int64_t classes = 0;  // the classes training counts (engine peekClassCount); 0: unknown or not class labels
};

// Never throws. Shapes are inferred for every node whose inputs are known, even in a network that
// is not valid yet (a half-built network shows its shapes as it grows). With `samples`, a block
// with no inputs (the network's input) whose shape holds another number of values than a sample
// gets a problem saying the dataset's shape, as the trainer would refuse it.
NetworkAnalysis analyseNetwork(const NetworkSpec& spec, const OpRegistry& registry,
                               const DatasetSamples* samples = nullptr);

// A parameter's label in forms and messages: "with_bias" -> "With bias", "kernel" -> "Kernel".
std::string fieldLabel(const std::string& param);
// A block's problem as a sentence of its own: "Block 'conv1', field 'Kernel': expected ..." or
// "Block 'conv1': ...".
std::string problemSentence(const std::string& nodeId, const std::string& problem);
// A validator message about `spec` with its JSON paths ("network.nodes[3].params.kernel: ...",
// "/network/nodes/3/params") told as the blocks, fields and links they point at.
std::string describeJsonPaths(const std::string& message, const NetworkSpec& spec);

}  // namespace netsmith::gui
