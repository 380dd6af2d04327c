// GroupNormalization in ONNX, as the portable decomposition (Note [GroupNormalization in ONNX]).
#include "engine/export/onnx_layers.h"
#include "engine/ops/group_normalization/group_norm_shape.h"

namespace netsmith::onnx_export {

// Note [GroupNormalization in ONNX]: ONNX's GroupNormalization came in opset 18 with one scale
// and bias per group, and opset 21 changed them to one per channel; the exporter writes opset 13
// (17 at most: Note [Opset per model]), and Debian's ONNX 1.12 checker knows neither. So the
// layer is written as PyTorch writes GroupNorm: Reshape to (N, G, rest), InstanceNormalization
// with scale 1 and bias 0 per group (the group's statistics), Reshape back to (N, C, ...), then
// Mul by gamma and Add beta shaped (C, 1, ...) to broadcast per channel. The Mul and the Add are
// left out when no_scale / no_bias.
void register_group_normalization(OnnxLayerTable& table) {
  addOnnxMapping(table, "GroupNormalization", [](OnnxLayerContext& c) {
    const OpParams p = c.params();
    const Shape& x = c.node.inputShapes.at(0);
    const ops::RowNormGeometry g = ops::groupNormGeometry(x, p);
    const int64_t groups = p.integer("num_groups");
    const std::vector<float> ones(static_cast<size_t>(groups), 1.0f), zeros(static_cast<size_t>(groups), 0.0f);
    const std::string grouped = c.local("grouped"), normalized = c.local("normalized");
    c.addNode("Reshape", {c.inputs.at(0), c.addInt64s("group_shape", {0, groups, -1})}, {grouped}, {}, "group");
    c.addNode("InstanceNormalization",
              {grouped, c.addFloats("unit_scale", Shape{groups}, ones.data()),
               c.addFloats("zero_bias", Shape{groups}, zeros.data())},
              {normalized}, {OnnxAttribute::real("epsilon", g.eps)}, "normalize");
    Shape perChannel{x[0]};
    for (size_t a = 1; a < x.size(); ++a) perChannel.push_back(1);
    std::string last = c.local("ungrouped");
    const bool mul = g.scale, add = g.bias;
    c.addNode("Reshape", {normalized, c.addInt64s("shape", onnxBatchShape(x))}, {mul || add ? last : c.output}, {},
              "ungroup");
    if (mul) {
      const std::string out = add ? c.local("scaled") : c.output;
      c.addNode("Mul", {last, c.addFloats("gamma", perChannel, c.blobs.at(g.gammaBlob())->data())}, {out}, {}, "scale");
      last = out;
    }
    if (add) c.addNode("Add", {last, c.addFloats("beta", perChannel, c.blobs.at(g.betaBlob())->data())}, {c.output}, {}, "shift");
  });
}

}  // namespace netsmith::onnx_export
