// Input in ONNX: the graph input, which the exporter names; nothing to add.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_input(OnnxLayerTable& table) {
  addOnnxMapping(table, "Input", [](OnnxLayerContext&) {});
}

}  // namespace netsmith::onnx_export
