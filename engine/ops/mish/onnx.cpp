// Mish in ONNX: opset 13 has no Mish (opset 18 has), so x * Tanh(Softplus(x)).
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_mish(OnnxLayerTable& table) {
  addOnnxMapping(table, "Mish", [](OnnxLayerContext& c) {
    const std::string soft = c.local("softplus"), t = c.local("tanh");
    c.addNode("Softplus", {c.inputs.at(0)}, {soft}, {}, "softplus");
    c.addNode("Tanh", {soft}, {t}, {}, "tanh");
    c.addNode("Mul", {c.inputs.at(0), t}, {c.output}, {}, "mul");
  });
}

}  // namespace netsmith::onnx_export
