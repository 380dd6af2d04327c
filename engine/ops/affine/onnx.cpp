// Affine in ONNX. nnabla's Affine: y = x (flattened from base_axis) · W + b, W (inner, outmaps...):
// Flatten + Gemm for base_axis 1, Reshape + MatMul + Add beyond, and a Reshape for several outmaps axes.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_affine(OnnxLayerTable& table) {
  addOnnxMapping(table, "Affine", [](OnnxLayerContext& c) {
    const OpParams p = c.params();
    const Shape& x = c.node.inputShapes.at(0);
    const size_t kept = static_cast<size_t>(p.integer("base_axis") - 1);
    const Shape outmaps = p.ints("n_outmaps");
    const int64_t inner = numel(Shape(x.begin() + static_cast<ptrdiff_t>(kept), x.end()));
    const int64_t m = numel(outmaps);
    const std::string w = c.addFloats("W", Shape{inner, m}, c.blobs.at(0)->data());
    const bool bias = p.flag("with_bias");
    const bool reshapeOut = outmaps.size() > 1;
    const std::string product = reshapeOut ? c.local("matrix") : c.output;
    if (kept == 0) {
      const std::string flat = c.local("flat");
      c.addNode("Flatten", {c.inputs.at(0)}, {flat}, {OnnxAttribute::integer("axis", 1)}, "flatten");
      std::vector<std::string> ins{flat, w};
      if (bias) ins.push_back(c.addFloats("b", Shape{m}, c.blobs.at(1)->data()));
      c.addNode("Gemm", ins, {product}, {}, "gemm");
    } else {
      Shape lhs(x.begin(), x.begin() + static_cast<ptrdiff_t>(kept));
      lhs.push_back(inner);
      const std::string rows = c.local("rows");
      c.addNode("Reshape", {c.inputs.at(0), c.addInt64s("rows_shape", onnxBatchShape(lhs))}, {rows}, {}, "rows");
      const std::string mm = bias ? c.local("matmul") : product;
      c.addNode("MatMul", {rows, w}, {mm}, {}, "matmul");
      if (bias) c.addNode("Add", {mm, c.addFloats("b", Shape{m}, c.blobs.at(1)->data())}, {product}, {}, "bias");
    }
    if (reshapeOut)
      c.addNode("Reshape", {product, c.addInt64s("out_shape", onnxBatchShape(c.node.outputShape))}, {c.output}, {},
                "reshape");
  });
}

}  // namespace netsmith::onnx_export
