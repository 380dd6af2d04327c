// Sub2 in ONNX:  y = x0 - x1, with numpy broadcasting (an axis of size 1, or a missing leading axis, is repeated to the other input's size).:Sub (onnx_broadcast.h aligns the per-sample axes first).
#include "engine/ops/onnx_broadcast.h"

namespace netsmith::onnx_export {

void register_sub2(OnnxLayerTable& table) {
  addOnnxMapping(table, "Sub2", [](OnnxLayerContext& c) { addBroadcastBinary(c, " y = x0 - x1, with numpy broadcasting (an axis of size 1, or a missing leading axis, is repeated to the other input's size).:Sub"); });
}

}  // namespace netsmith::onnx_export
