// Swish in ONNX: opset 13 has no Swish, so x * Sigmoid(x).
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_swish(OnnxLayerTable& table) {
  addOnnxMapping(table, "Swish", [](OnnxLayerContext& c) {
    const std::string s = c.local("sigmoid");
    c.addNode("Sigmoid", {c.inputs.at(0)}, {s}, {}, "sigmoid");
    c.addNode("Mul", {c.inputs.at(0), s}, {c.output}, {}, "mul");
  });
}

}  // namespace netsmith::onnx_export
