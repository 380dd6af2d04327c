// MaxPooling in ONNX: MaxPool with the end pads of Note [Pooling windows] (max pooling never
// picks padding, so the extra end pad of ceil mode changes nothing).
#include "engine/export/onnx_layers.h"
#include "engine/export/onnx_pooling.h"

namespace netsmith::onnx_export {

void register_max_pooling(OnnxLayerTable& table) {
  addOnnxMapping(table, "MaxPooling", [](OnnxLayerContext& c) {
    const OnnxPoolingWindow w = onnxPoolingWindow(c);
    c.addNode("MaxPool", {c.inputs.at(0)}, {c.output},
              {OnnxAttribute::integers("kernel_shape", w.kernel), OnnxAttribute::integers("strides", w.stride),
               OnnxAttribute::integers("pads", {w.pad[0], w.pad[1], w.endPad[0], w.endPad[1]})});
  });
}

}  // namespace netsmith::onnx_export
