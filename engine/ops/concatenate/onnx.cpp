// Concatenate in ONNX: Concat over the same axis (+1 for the batch axis).
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_concatenate(OnnxLayerTable& table) {
  addOnnxMapping(table, "Concatenate", [](OnnxLayerContext& c) {
    c.addNode("Concat", c.inputs, {c.output}, {OnnxAttribute::integer("axis", c.batchAxis())});
  });
}

}  // namespace netsmith::onnx_export
