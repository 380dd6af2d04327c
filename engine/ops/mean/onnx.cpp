// Mean in ONNX: ReduceMean (opset 13: axes as an attribute), axes + 1 for the batch axis.
#include "engine/ops/reduction_onnx.h"

namespace netsmith::onnx_export {

void register_mean(OnnxLayerTable& table) { addOnnxMapping(table, "Mean", [](OnnxLayerContext& c) { addReduction(c, "ReduceMean", false); }); }

}  // namespace netsmith::onnx_export
