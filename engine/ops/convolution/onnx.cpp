// Convolution in ONNX: Conv; W (outmaps, inmaps/group, kh, kw) is laid out as Conv expects.
#include "engine/export/onnx_layers.h"
#include "engine/ops/convolution/onnx_conv.h"

namespace netsmith::onnx_export {

void register_convolution(OnnxLayerTable& table) {
  addOnnxMapping(table, "Convolution", [](OnnxLayerContext& c) { addConvolutionNode(c, "Conv"); });
}

}  // namespace netsmith::onnx_export
