// Dropout in ONNX: Identity, as inference passes the input through unchanged.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_dropout(OnnxLayerTable& table) {
  addOnnxMapping(table, "Dropout", [](OnnxLayerContext& c) { c.unary("Identity"); });
}

}  // namespace netsmith::onnx_export
