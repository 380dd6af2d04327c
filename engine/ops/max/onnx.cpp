// Max in ONNX: ReduceMax (opset 13: axes as an attribute), axes + 1 for the batch axis.
#include "engine/ops/reduction_onnx.h"

namespace netsmith::onnx_export {

void register_max(OnnxLayerTable& table) { addOnnxMapping(table, "Max", [](OnnxLayerContext& c) { addReduction(c, "ReduceMax", false); }); }

}  // namespace netsmith::onnx_export
