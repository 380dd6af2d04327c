// Pad in ONNX: Pad, mode constant or reflect (the same mirror as ours), with pads (begins of every
// axis, then ends; 0 for the batch).
#include "engine/export/onnx_layers.h"
#include "engine/ops/pad/pad_view.h"

namespace netsmith::onnx_export {

void register_pad(OnnxLayerTable& table) {
  addOnnxMapping(table, "Pad", [](OnnxLayerContext& c) {
    const auto widths = ops::padWidths(c.node.inputShapes.at(0), c.params());
    std::vector<int64_t> pads{0};
    for (const auto& w : widths) pads.push_back(w.first);
    pads.push_back(0);
    for (const auto& w : widths) pads.push_back(w.second);
    c.addNode("Pad", {c.inputs.at(0), c.addInt64s("pads", pads),
                      c.addScalar("constant_value", static_cast<float>(c.params().number("constant_value")))},
              {c.output}, {OnnxAttribute{"mode", OnnxAttribute::Kind::String, 0, 0, {}, c.params().text("mode")}});
  });
}

}  // namespace netsmith::onnx_export
