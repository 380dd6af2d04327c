// HardSigmoid in ONNX: HardSigmoid, max(0, min(1, alpha · x + beta)), with nnabla's alpha 0.2, beta 0.5.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_hard_sigmoid(OnnxLayerTable& table) {
  addOnnxMapping(table, "HardSigmoid", [](OnnxLayerContext& c) {
    c.unary("HardSigmoid", {OnnxAttribute::real("alpha", 0.2f), OnnxAttribute::real("beta", 0.5f)});
  });
}

}  // namespace netsmith::onnx_export
