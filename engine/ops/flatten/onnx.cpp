// Flatten in ONNX: Flatten from axis 1 (every axis after the batch axis).
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_flatten(OnnxLayerTable& table) {
  addOnnxMapping(table, "Flatten", [](OnnxLayerContext& c) { c.unary("Flatten", {OnnxAttribute::integer("axis", 1)}); });
}

}  // namespace netsmith::onnx_export
