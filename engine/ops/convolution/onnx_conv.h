// The ONNX node of Convolution (Conv) and Deconvolution (ConvTranspose): the two share their
// parameters (kernel, pad, stride, dilation, group, with_bias) and keep W in the layout ONNX reads.
#pragma once

#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

inline void addConvolutionNode(OnnxLayerContext& c, const char* opType) {
  const OpParams p = c.params();
  const auto k = p.ints("kernel"), pad = p.ints("pad"), stride = p.ints("stride"), dil = p.ints("dilation");
  std::vector<std::string> ins{c.inputs.at(0), c.addFloats("W", c.blobs.at(0)->shape(), c.blobs.at(0)->data())};
  if (p.flag("with_bias")) ins.push_back(c.addFloats("b", c.blobs.at(1)->shape(), c.blobs.at(1)->data()));
  c.addNode(opType, ins, {c.output},
            {OnnxAttribute::integers("kernel_shape", k), OnnxAttribute::integers("pads", {pad[0], pad[1], pad[0], pad[1]}),
             OnnxAttribute::integers("strides", stride), OnnxAttribute::integers("dilations", dil),
             OnnxAttribute::integer("group", p.integer("group"))});
}

}  // namespace netsmith::onnx_export
