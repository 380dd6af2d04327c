// Sum in ONNX: ReduceSum (opset 13: axes as an input), axes + 1 for the batch axis.
#include "engine/ops/reduction_onnx.h"

namespace netsmith::onnx_export {

void register_sum(OnnxLayerTable& table) { addOnnxMapping(table, "Sum", [](OnnxLayerContext& c) { addReduction(c, "ReduceSum", true); }); }

}  // namespace netsmith::onnx_export
