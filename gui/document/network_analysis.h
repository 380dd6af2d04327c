// What the Edit page shows about a network besides its drawing: each block's inferred output
// shape, parameter count and multiply-adds, the validator's problems tied to their blocks, and the
// network totals. Worked out by the engine's registry (shape inference, parameter blobs) and
// checkNetwork(); nothing here knows a layer type by name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ops/op_registry.h"
#include "engine/project/graph.h"

namespace netsmith::gui {

struct NodeFacts {
  std::optional<Shape> outputShape;  // absent when it cannot be inferred (a problem upstream)
  int64_t parameterCount = 0;
  int64_t multiplyAdds = 0;
  std::vector<std::string> problems;  // sentences from the validator about this node
};

struct NetworkAnalysis {
  std::map<std::string, NodeFacts> nodes;   // by node id
  std::vector<std::string> networkProblems; // problems about no node in particular
  int64_t parameterCount = 0;               // over the nodes whose shapes are known
  int64_t multiplyAdds = 0;
  bool valid = false;                       // checkNetwork() found nothing

  int problemCount() const;
};

// Never throws. Shapes are inferred for every node whose inputs are known, even in a network that
// is not valid yet (a half-built network shows its shapes as it grows).
NetworkAnalysis analyseNetwork(const NetworkSpec& spec, const OpRegistry& registry);

}  // namespace netsmith::gui
