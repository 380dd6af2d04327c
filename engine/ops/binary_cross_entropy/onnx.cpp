// BinaryCrossEntropy in ONNX: its output head (Note [Output head]) passes the prediction through.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_binary_cross_entropy(OnnxLayerTable& table) {
  addOnnxMapping(table, "BinaryCrossEntropy", [](OnnxLayerContext& c) { c.unary("Identity"); });
}

}  // namespace netsmith::onnx_export
