// KLDivergence in ONNX: it reads probabilities, so its output head (Note [Output head]) passes
// the prediction through.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_kl_divergence(OnnxLayerTable& table) {
  addOnnxMapping(table, "KLDivergence", [](OnnxLayerContext& c) { c.unary("Identity"); });
}

}  // namespace netsmith::onnx_export
