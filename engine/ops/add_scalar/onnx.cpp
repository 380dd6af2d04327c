// AddScalar in ONNX: Add with `val` as a scalar initializer.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_add_scalar(OnnxLayerTable& table) {
  addOnnxMapping(table, "AddScalar", [](OnnxLayerContext& c) {
    const float val = static_cast<float>(c.params().number("val"));
    c.addNode("Add", {c.inputs.at(0), c.addScalar("val", val)}, {c.output});
  });
}

}  // namespace netsmith::onnx_export
