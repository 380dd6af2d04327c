// Reshape in ONNX: Reshape to (0, shape...), 0 keeping the batch axis.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_reshape(OnnxLayerTable& table) {
  addOnnxMapping(table, "Reshape", [](OnnxLayerContext& c) {
    c.addNode("Reshape", {c.inputs.at(0), c.addInt64s("shape", onnxBatchShape(c.node.outputShape))}, {c.output});
  });
}

}  // namespace netsmith::onnx_export
