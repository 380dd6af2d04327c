// SoftPlus in ONNX: Softplus, which has no beta: Softplus(beta · x) / beta unless beta is 1.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_softplus(OnnxLayerTable& table) {
  addOnnxMapping(table, "SoftPlus", [](OnnxLayerContext& c) {
    const float beta = static_cast<float>(c.params().number("beta"));
    if (beta == 1.0f) {
      c.unary("Softplus");
      return;
    }
    const std::string scaled = c.local("scaled"), soft = c.local("softplus");
    c.addNode("Mul", {c.inputs.at(0), c.addScalar("beta", beta)}, {scaled}, {}, "scale");
    c.addNode("Softplus", {scaled}, {soft}, {}, "softplus");
    c.addNode("Div", {soft, c.addScalar("beta_divisor", beta)}, {c.output}, {}, "unscale");
  });
}

}  // namespace netsmith::onnx_export
