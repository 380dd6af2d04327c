// RDivScalar in ONNX: Div with `val` as a scalar initializer.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_r_div_scalar(OnnxLayerTable& table) {
  addOnnxMapping(table, "RDivScalar", [](OnnxLayerContext& c) {
    const float val = static_cast<float>(c.params().number("val"));
    c.addNode("Div", {c.addScalar("val", val), c.inputs.at(0)}, {c.output});
  });
}

}  // namespace netsmith::onnx_export
