// LeakyReLU in ONNX: LeakyRelu with the same alpha.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_leaky_relu(OnnxLayerTable& table) {
  addOnnxMapping(table, "LeakyReLU", [](OnnxLayerContext& c) { c.unary("LeakyRelu", {OnnxAttribute::real("alpha", static_cast<float>(c.params().number("alpha")))}); });
}

}  // namespace netsmith::onnx_export
