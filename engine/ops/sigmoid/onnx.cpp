// Sigmoid in ONNX: Sigmoid.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_sigmoid(OnnxLayerTable& table) {
  addOnnxMapping(table, "Sigmoid", [](OnnxLayerContext& c) { c.unary("Sigmoid"); });
}

}  // namespace netsmith::onnx_export
