// Identity in ONNX: Identity.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_identity(OnnxLayerTable& table) {
  addOnnxMapping(table, "Identity", [](OnnxLayerContext& c) { c.unary("Identity"); });
}

}  // namespace netsmith::onnx_export
