// HuberLoss in ONNX: its output head (Note [Output head]) passes the prediction through.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_huber_loss(OnnxLayerTable& table) {
  addOnnxMapping(table, "HuberLoss", [](OnnxLayerContext& c) { c.unary("Identity"); });
}

}  // namespace netsmith::onnx_export
