// SigmoidCrossEntropy in ONNX: its output head (Note [Output head]), Sigmoid.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_sigmoid_cross_entropy(OnnxLayerTable& table) {
  addOnnxMapping(table, "SigmoidCrossEntropy", [](OnnxLayerContext& c) { c.unary("Sigmoid"); });
}

}  // namespace netsmith::onnx_export
