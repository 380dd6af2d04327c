// GELU in ONNX: opset 13 has no Gelu (opset 20 has), so the layer's own formula in basic ops:
//   tanh: x/2 · (1 + Tanh(√(2/π) · (x + 0.044715 · x·x·x)))
//   none: x/2 · (1 + Erf(x / √2))
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_gelu(OnnxLayerTable& table) {
  addOnnxMapping(table, "GELU", [](OnnxLayerContext& c) {
    const std::string& x = c.inputs.at(0);
    const std::string gate = c.local("gate"), onePlus = c.local("one_plus"), halfX = c.local("half_x");
    if (c.params().text("approximate") == "tanh") {
      const std::string square = c.local("square"), cube = c.local("cube"), cubic = c.local("cubic"),
                        inner = c.local("inner"), scaled = c.local("scaled");
      c.addNode("Mul", {x, x}, {square}, {}, "square");
      c.addNode("Mul", {square, x}, {cube}, {}, "cube");
      c.addNode("Mul", {cube, c.addScalar("cubic_coefficient", 0.044715f)}, {cubic}, {}, "cubic");
      c.addNode("Add", {x, cubic}, {inner}, {}, "inner");
      c.addNode("Mul", {inner, c.addScalar("sqrt_2_over_pi", 0.7978845608f)}, {scaled}, {}, "scaled");
      c.addNode("Tanh", {scaled}, {gate}, {}, "tanh");
    } else {
      const std::string scaled = c.local("scaled");
      c.addNode("Mul", {x, c.addScalar("inv_sqrt_2", 0.7071067812f)}, {scaled}, {}, "scaled");
      c.addNode("Erf", {scaled}, {gate}, {}, "erf");
    }
    c.addNode("Add", {gate, c.addScalar("one", 1.0f)}, {onePlus}, {}, "one_plus");
    c.addNode("Mul", {x, c.addScalar("half", 0.5f)}, {halfX}, {}, "half_x");
    c.addNode("Mul", {halfX, onePlus}, {c.output}, {}, "mul");
  });
}

}  // namespace netsmith::onnx_export
