// Softmax in ONNX: Softmax over the same axis (+1 for the batch axis).
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_softmax(OnnxLayerTable& table) {
  addOnnxMapping(table, "Softmax", [](OnnxLayerContext& c) { c.unary("Softmax", {OnnxAttribute::integer("axis", c.batchAxis())}); });
}

}  // namespace netsmith::onnx_export
