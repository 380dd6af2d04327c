// PReLU in ONNX: PRelu, whose slope broadcasts against (N, ...) from the right: a shared slope is
// (1), per-channel slopes are (C, 1, ...) with a 1 for every axis after base_axis.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_prelu(OnnxLayerTable& table) {
  addOnnxMapping(table, "PReLU", [](OnnxLayerContext& c) {
    const OpParams p = c.params();
    const Tensor& slope = *c.blobs.at(0);
    Shape dims{slope.size()};
    if (!p.flag("shared")) {
      const auto after = static_cast<int64_t>(c.node.inputShapes.at(0).size()) - p.integer("base_axis");
      for (int64_t a = 0; a < after; ++a) dims.push_back(1);
    }
    c.addNode("PRelu", {c.inputs.at(0), c.addFloats("slope", dims, slope.data())}, {c.output});
  });
}

}  // namespace netsmith::onnx_export
