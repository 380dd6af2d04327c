// SquaredError in ONNX: its output head (Note [Output head]) passes the prediction through.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_squared_error(OnnxLayerTable& table) {
  addOnnxMapping(table, "SquaredError", [](OnnxLayerContext& c) { c.unary("Identity"); });
}

}  // namespace netsmith::onnx_export
