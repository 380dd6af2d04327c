// Interpolate in ONNX: Resize to the inferred sizes, with the coordinate transformation of Note
// [Interpolate coordinates]; linear with both align_corners and half_pixel has none and is refused.
#include "engine/core/error.h"
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_interpolate(OnnxLayerTable& table) {
  addOnnxMapping(table, "Interpolate", [](OnnxLayerContext& c) {
    const OpParams p = c.params();
    const bool linear = p.text("mode") == "linear";
    const bool corners = p.flag("align_corners"), half = p.flag("half_pixel");
    NS_CHECK(!(linear && corners && half),
             "layer '{}' (Interpolate) has align_corners and half_pixel both true, which ONNX Resize cannot "
             "express: set one of them to false",
             c.node.id);
    // pytorch_half_pixel is half_pixel except for an output of size 1, which reads position 0:
    // nnabla's scale is 0 there (Note [Interpolate coordinates]), where ONNX's half_pixel would
    // read the input's middle.
    const char* transform = linear ? (corners ? "align_corners" : half ? "pytorch_half_pixel" : "asymmetric")
                                   : (half ? "tf_half_pixel_for_nn" : "asymmetric");
    const auto text = [](const char* name, const char* value) {
      return OnnxAttribute{name, OnnxAttribute::Kind::String, 0, 0, {}, value};
    };
    std::vector<OnnxAttribute> attrs{text("mode", linear ? "linear" : "nearest"),
                                     text("coordinate_transformation_mode", transform)};
    if (!linear) attrs.push_back(text("nearest_mode", "floor"));
    // Resize's sizes count the batch, which the model leaves open: (N from Shape(x), then ours).
    const std::string shape = c.local("input_shape"), batch = c.local("batch"), sizes = c.local("sizes");
    c.addNode("Shape", {c.inputs.at(0)}, {shape}, {}, "shape");
    c.addNode("Slice", {shape, c.addInt64s("batch_start", {0}), c.addInt64s("batch_end", {1})}, {batch}, {}, "batch");
    std::vector<int64_t> perSample(c.node.outputShape.begin(), c.node.outputShape.end());
    c.addNode("Concat", {batch, c.addInt64s("sample_sizes", perSample)}, {sizes}, {OnnxAttribute::integer("axis", 0)},
              "sizes");
    c.addNode("Resize", {c.inputs.at(0), c.addFloats("roi", {0}, nullptr), c.addFloats("scales", {0}, nullptr), sizes},
              {c.output}, attrs);
  });
}

}  // namespace netsmith::onnx_export
