// Unpooling in ONNX: Resize, nearest, asymmetric coordinates rounded down, integer scales: each
// output position reads input position floor(o / k), the repeat.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_unpooling(OnnxLayerTable& table) {
  addOnnxMapping(table, "Unpooling", [](OnnxLayerContext& c) {
    const Shape& x = c.node.inputShapes.at(0);
    const auto kernel = c.params().ints("kernel");
    std::vector<float> scales(x.size() + 1, 1.0f);
    for (size_t k = 0; k < kernel.size(); ++k) scales[scales.size() - kernel.size() + k] = static_cast<float>(kernel[k]);
    const auto text = [](const char* name, const char* value) {
      return OnnxAttribute{name, OnnxAttribute::Kind::String, 0, 0, {}, value};
    };
    c.addNode("Resize",
              {c.inputs.at(0), c.addFloats("roi", {0}, nullptr),
               c.addFloats("scales", {static_cast<int64_t>(scales.size())}, scales.data())},
              {c.output},
              {text("mode", "nearest"), text("coordinate_transformation_mode", "asymmetric"),
               text("nearest_mode", "floor")});
  });
}

}  // namespace netsmith::onnx_export
