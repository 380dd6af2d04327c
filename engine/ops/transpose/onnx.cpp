// Transpose in ONNX: Transpose with perm = (0, axes + 1).
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_transpose(OnnxLayerTable& table) {
  addOnnxMapping(table, "Transpose", [](OnnxLayerContext& c) {
    std::vector<int64_t> perm{0};
    for (int64_t a : c.params().ints("axes")) perm.push_back(a + 1);
    c.unary("Transpose", {OnnxAttribute::integers("perm", perm)});
  });
}

}  // namespace netsmith::onnx_export
