// Div2 in ONNX: Div (onnx_broadcast.h aligns the per-sample axes first).
#include "engine/ops/onnx_broadcast.h"

namespace netsmith::onnx_export {

void register_div2(OnnxLayerTable& table) {
  addOnnxMapping(table, "Div2", [](OnnxLayerContext& c) { addBroadcastBinary(c, "Div"); });
}

}  // namespace netsmith::onnx_export
