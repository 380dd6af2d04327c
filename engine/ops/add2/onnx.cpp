// Add2 in ONNX: Add.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_add2(OnnxLayerTable& table) {
  addOnnxMapping(table, "Add2",
                 [](OnnxLayerContext& c) { c.addNode("Add", {c.inputs.at(0), c.inputs.at(1)}, {c.output}); });
}

}  // namespace netsmith::onnx_export
