// Sub2 in ONNX: Sub (onnx_broadcast.h aligns the per-sample axes first).
#include "engine/ops/onnx_broadcast.h"

namespace netsmith::onnx_export {

void register_sub2(OnnxLayerTable& table) {
  addOnnxMapping(table, "Sub2", [](OnnxLayerContext& c) { addBroadcastBinary(c, "Sub"); });
}

}  // namespace netsmith::onnx_export
