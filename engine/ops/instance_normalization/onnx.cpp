// InstanceNormalization in ONNX: InstanceNormalization (opset 6 on) with scale and B per channel;
// ONNX requires both, so a missing gamma is ones and a missing beta zeros.
#include "engine/export/onnx_layers.h"
#include "engine/ops/instance_normalization/instance_norm_shape.h"

namespace netsmith::onnx_export {

void register_instance_normalization(OnnxLayerTable& table) {
  addOnnxMapping(table, "InstanceNormalization", [](OnnxLayerContext& c) {
    const ops::RowNormGeometry g = ops::instanceNormGeometry(c.node.inputShapes.at(0), c.params());
    const Shape channels{g.paramCount};
    const std::vector<float> ones(static_cast<size_t>(g.paramCount), 1.0f), zeros(static_cast<size_t>(g.paramCount), 0.0f);
    const std::string scale = c.addFloats("gamma", channels, g.scale ? c.blobs.at(g.gammaBlob())->data() : ones.data());
    const std::string bias = c.addFloats("beta", channels, g.bias ? c.blobs.at(g.betaBlob())->data() : zeros.data());
    c.addNode("InstanceNormalization", {c.inputs.at(0), scale, bias}, {c.output},
              {OnnxAttribute::real("epsilon", g.eps)});
  });
}

}  // namespace netsmith::onnx_export
