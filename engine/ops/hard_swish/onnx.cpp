// HardSwish in ONNX: opset 13 has no HardSwish (opset 14 has), so x * HardSigmoid(x) with alpha
// 1/6 and beta 0.5, which is the same function.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_hard_swish(OnnxLayerTable& table) {
  addOnnxMapping(table, "HardSwish", [](OnnxLayerContext& c) {
    const std::string gate = c.local("gate");
    c.addNode("HardSigmoid", {c.inputs.at(0)}, {gate},
              {OnnxAttribute::real("alpha", 1.0f / 6.0f), OnnxAttribute::real("beta", 0.5f)}, "gate");
    c.addNode("Mul", {c.inputs.at(0), gate}, {c.output}, {}, "mul");
  });
}

}  // namespace netsmith::onnx_export
