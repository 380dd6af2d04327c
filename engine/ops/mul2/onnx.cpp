// Mul2 in ONNX: Mul (onnx_broadcast.h aligns the per-sample axes first).
#include "engine/ops/onnx_broadcast.h"

namespace netsmith::onnx_export {

void register_mul2(OnnxLayerTable& table) {
  addOnnxMapping(table, "Mul2", [](OnnxLayerContext& c) { addBroadcastBinary(c, "Mul"); });
}

}  // namespace netsmith::onnx_export
