// Deconvolution in ONNX: ConvTranspose; W (inmaps, outmaps/group, kh, kw) is laid out as ConvTranspose expects.
#include "engine/export/onnx_layers.h"
#include "engine/ops/convolution/onnx_conv.h"

namespace netsmith::onnx_export {

void register_deconvolution(OnnxLayerTable& table) {
  addOnnxMapping(table, "Deconvolution", [](OnnxLayerContext& c) { addConvolutionNode(c, "ConvTranspose"); });
}

}  // namespace netsmith::onnx_export
