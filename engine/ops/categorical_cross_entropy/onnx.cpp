// CategoricalCrossEntropy in ONNX: it reads probabilities (a Softmax before it), so its output
// head (Note [Output head]) passes the prediction through.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_categorical_cross_entropy(OnnxLayerTable& table) {
  addOnnxMapping(table, "CategoricalCrossEntropy", [](OnnxLayerContext& c) { c.unary("Identity"); });
}

}  // namespace netsmith::onnx_export
