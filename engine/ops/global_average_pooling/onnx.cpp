// GlobalAveragePooling in ONNX: GlobalAveragePool.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_global_average_pooling(OnnxLayerTable& table) {
  addOnnxMapping(table, "GlobalAveragePooling", [](OnnxLayerContext& c) { c.unary("GlobalAveragePool"); });
}

}  // namespace netsmith::onnx_export
