// ELU in ONNX: Elu with the same alpha.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_elu(OnnxLayerTable& table) {
  addOnnxMapping(table, "ELU", [](OnnxLayerContext& c) { c.unary("Elu", {OnnxAttribute::real("alpha", static_cast<float>(c.params().number("alpha")))}); });
}

}  // namespace netsmith::onnx_export
