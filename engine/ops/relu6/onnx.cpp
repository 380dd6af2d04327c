// ReLU6 in ONNX: Clip with min 0 and max 6 (opset 13 reads them as scalar inputs).
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_relu6(OnnxLayerTable& table) {
  addOnnxMapping(table, "ReLU6", [](OnnxLayerContext& c) {
    c.addNode("Clip", {c.inputs.at(0), c.addScalar("min", 0.0f), c.addScalar("max", 6.0f)}, {c.output});
  });
}

}  // namespace netsmith::onnx_export
