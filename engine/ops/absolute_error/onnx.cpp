// AbsoluteError in ONNX: its output head (Note [Output head]) passes the prediction through.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_absolute_error(OnnxLayerTable& table) {
  addOnnxMapping(table, "AbsoluteError", [](OnnxLayerContext& c) { c.unary("Identity"); });
}

}  // namespace netsmith::onnx_export
