// LayerNormalization in ONNX: LayerNormalization (opset 17; Note [Opset per model]) with axis =
// the first normalized axis (the number of batch axes) and Scale, B of the normalized shape. It
// raises the model's opset from 13 to 17; the operators of every other mapping mean the same in
// opset 17 as in 13 (opsets 14–17 only widened their types or added operators).
#include "engine/export/onnx_layers.h"
#include "engine/ops/layer_normalization/layer_norm_shape.h"

namespace netsmith::onnx_export {

void register_layer_normalization(OnnxLayerTable& table) {
  addOnnxMapping(table, "LayerNormalization", [](OnnxLayerContext& c) {
    const OpParams p = c.params();
    const Shape& x = c.node.inputShapes.at(0);
    const size_t extra = ops::layerNormBatchAxes(x, p);
    const Shape normalized(x.begin() + static_cast<std::ptrdiff_t>(extra), x.end());
    const ops::RowNormGeometry g = ops::layerNormGeometry(x, p);
    // ONNX's Scale is required: ones without gamma.
    const std::vector<float> ones(static_cast<size_t>(g.rowLength), 1.0f);
    std::vector<std::string> ins{c.inputs.at(0),
                                 c.addFloats("gamma", normalized, g.scale ? c.blobs.at(g.gammaBlob())->data() : ones.data())};
    if (g.bias) ins.push_back(c.addFloats("beta", normalized, c.blobs.at(g.betaBlob())->data()));
    c.requireOpset(17);
    c.addNode("LayerNormalization", ins, {c.output},
              {OnnxAttribute::integer("axis", static_cast<int64_t>(extra) + 1),
               OnnxAttribute::real("epsilon", static_cast<float>(p.number("eps")))});
  });
}

}  // namespace netsmith::onnx_export
