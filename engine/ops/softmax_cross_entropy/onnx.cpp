// SoftmaxCrossEntropy in ONNX: its output head (Note [Output head]), Softmax over the classes.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_softmax_cross_entropy(OnnxLayerTable& table) {
  addOnnxMapping(table, "SoftmaxCrossEntropy", [](OnnxLayerContext& c) { c.unary("Softmax", {OnnxAttribute::integer("axis", 1)}); });
}

}  // namespace netsmith::onnx_export
