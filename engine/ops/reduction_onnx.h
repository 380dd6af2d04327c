// ONNX form of Sum, Mean and Max (reduction.h): Reduce* over axes + 1 with keepdims. When every
// per-sample axis is removed Netsmith keeps one value per sample, shape (1): a Reshape to (N, 1)
// follows, as it does whenever the ONNX result's shape differs from Netsmith's.
#pragma once

#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

inline void addReduction(OnnxLayerContext& c, const char* opType, bool axesAsInput) {
  std::vector<int64_t> axes;
  for (int64_t a : c.params().ints("axes")) axes.push_back(a + 1);
  const bool keep = c.params().flag("keep_dims");
  const size_t kept = c.node.inputShapes.at(0).size() - axes.size();
  const bool reshape = !keep && kept == 0;
  const std::string out = reshape ? c.local("reduced") : c.output;
  std::vector<OnnxAttribute> attrs{OnnxAttribute::integer("keepdims", keep ? 1 : 0)};
  std::vector<std::string> ins{c.inputs.at(0)};
  if (axesAsInput) ins.push_back(c.addInt64s("axes", axes));
  else attrs.push_back(OnnxAttribute::integers("axes", axes));
  c.addNode(opType, ins, {out}, attrs, reshape ? "reduce" : "");
  if (reshape) c.addNode("Reshape", {out, c.addInt64s("shape", onnxBatchShape(c.node.outputShape))}, {c.output});
}

}  // namespace netsmith::onnx_export
