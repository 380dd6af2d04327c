// ONNX form of the broadcasting arithmetic (Mul2, Sub2, Div2). Netsmith aligns the per-sample
// shapes at their last axes and keeps the batch axis first in both; ONNX's numpy rule would
// align a shorter input's axes with the batch axis. So an input with fewer per-sample axes is
// first reshaped to (N, 1, ..., 1, its shape), and the operator then broadcasts as Netsmith does.
#pragma once

#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

inline void addBroadcastBinary(OnnxLayerContext& c, const char* opType) {
  const size_t rank = std::max(c.node.inputShapes.at(0).size(), c.node.inputShapes.at(1).size());
  std::vector<std::string> inputs;
  for (size_t k = 0; k < 2; ++k) {
    const Shape& s = c.node.inputShapes[k];
    if (s.size() == rank) {
      inputs.push_back(c.inputs.at(k));
      continue;
    }
    Shape padded(rank - s.size(), 1);
    padded.insert(padded.end(), s.begin(), s.end());
    const std::string aligned = c.local("aligned" + std::to_string(k));
    c.addNode("Reshape", {c.inputs.at(k), c.addInt64s("aligned_shape" + std::to_string(k), onnxBatchShape(padded))},
              {aligned}, {}, "align" + std::to_string(k));
    inputs.push_back(aligned);
  }
  c.addNode(opType, inputs, {c.output});
}

}  // namespace netsmith::onnx_export
