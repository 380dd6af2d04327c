// MulScalar in ONNX: Mul with `val` as a scalar initializer.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_mul_scalar(OnnxLayerTable& table) {
  addOnnxMapping(table, "MulScalar", [](OnnxLayerContext& c) {
    const float val = static_cast<float>(c.params().number("val"));
    c.addNode("Mul", {c.inputs.at(0), c.addScalar("val", val)}, {c.output});
  });
}

}  // namespace netsmith::onnx_export
