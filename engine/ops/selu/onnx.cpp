// SELU in ONNX: Selu with the same alpha and gamma (= scale).
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_selu(OnnxLayerTable& table) {
  addOnnxMapping(table, "SELU", [](OnnxLayerContext& c) {
    const OpParams p = c.params();
    c.unary("Selu", {OnnxAttribute::real("alpha", static_cast<float>(p.number("alpha"))),
                     OnnxAttribute::real("gamma", static_cast<float>(p.number("scale")))});
  });
}

}  // namespace netsmith::onnx_export
