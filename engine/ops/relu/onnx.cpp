// ReLU in ONNX: Relu.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_relu(OnnxLayerTable& table) {
  addOnnxMapping(table, "ReLU", [](OnnxLayerContext& c) { c.unary("Relu"); });
}

}  // namespace netsmith::onnx_export
