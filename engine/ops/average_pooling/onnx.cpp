// AveragePooling in ONNX: AveragePool with count_include_pad = including_pad and the end pads of
// Note [Pooling windows]. including_pad divides by the window's part inside the input padded by
// `pad`; when a ceil-mode window runs past that, the `pad` zeros are made explicit with a Pad node
// and the extra end pad is excluded from the count (count_include_pad 0).
#include "engine/export/onnx_layers.h"
#include "engine/export/onnx_pooling.h"

namespace netsmith::onnx_export {

void register_average_pooling(OnnxLayerTable& table) {
  addOnnxMapping(table, "AveragePooling", [](OnnxLayerContext& c) {
    const OnnxPoolingWindow w = onnxPoolingWindow(c);
    std::vector<OnnxAttribute> attrs{OnnxAttribute::integers("kernel_shape", w.kernel),
                                     OnnxAttribute::integers("strides", w.stride)};
    const bool includingPad = c.params().flag("including_pad");
    if (includingPad && w.overhang) {
      const std::string padded = c.local("padded");
      c.addNode("Pad", {c.inputs.at(0), c.addInt64s("pads", {0, 0, w.pad[0], w.pad[1], 0, 0, w.pad[0], w.pad[1]})},
                {padded}, {}, "pad");
      attrs.push_back(OnnxAttribute::integers("pads", {0, 0, w.endPad[0] - w.pad[0], w.endPad[1] - w.pad[1]}));
      attrs.push_back(OnnxAttribute::integer("count_include_pad", 0));
      c.addNode("AveragePool", {padded}, {c.output}, attrs);
      return;
    }
    attrs.push_back(OnnxAttribute::integers("pads", {w.pad[0], w.pad[1], w.endPad[0], w.endPad[1]}));
    attrs.push_back(OnnxAttribute::integer("count_include_pad", includingPad ? 1 : 0));
    c.addNode("AveragePool", {c.inputs.at(0)}, {c.output}, attrs);
  });
}

}  // namespace netsmith::onnx_export
