// Tanh in ONNX: Tanh.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_tanh(OnnxLayerTable& table) {
  addOnnxMapping(table, "Tanh", [](OnnxLayerContext& c) { c.unary("Tanh"); });
}

}  // namespace netsmith::onnx_export
