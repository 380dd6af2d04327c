// Element-wise Add, Sub, Mul and Div of two layers' outputs (Note [Elementwise import]): Add2,
// Sub2, Mul2, Div2. Add and Mul first try their patterns with constants (onnx_convert_layers.cpp:
// a bias, a per-channel scale, GroupNormalization's gamma and beta, Swish's gate).
#include "engine/core/error.h"
#include "engine/import/onnx/onnx_import_context.h"

namespace netsmith::onnx_import {

// Note [Elementwise import]
// ONNX broadcasts the whole shapes, batch axis included, aligning their last axes; Netsmith's
// Mul2, Sub2 and Div2 broadcast the per-sample shapes the same way (binary_arithmetic.h), and
// Add2 adds equal shapes only. With as many per-sample axes on both sides the batch axes meet
// each other, so the two agree: a squeeze-and-excitation block's (N, C, H, W) · (N, C, 1, 1) is a
// Mul2. With fewer axes on one side ONNX would line that side's batch axis up with a per-sample
// axis of the other, mixing samples: refused, naming both shapes.
void elementwiseOfLayers(ImportContext& c, const OnnxNodeDef& n, const std::string& layerType) {
  const Value& a = c.layer(n, 0);
  const Value& b = c.layer(n, 1);
  if (a.shape.size() != b.shape.size())
    c.unsupported(n, format("of ({}) and ({}) per sample: ONNX's broadcasting lines the batch axis of the one with fewer "
                            "axes up with an axis of a sample of the other, which mixes samples",
                            shapeToString(a.shape), shapeToString(b.shape)));
  if (layerType == "Add2" && a.shape != b.shape)
    c.unsupported(n, format("with broadcasting, of ({}) and ({}): Netsmith's Add2 adds tensors of the same shape (Mul2, "
                            "Sub2 and Div2 broadcast)",
                            shapeToString(a.shape), shapeToString(b.shape)));
  c.addLayer(n, layerType, {&a, &b});
}

void addElementwiseConverters(ConverterTable& t) {
  t["Sub"] = [](ImportContext& c, const OnnxNodeDef& n) { elementwiseOfLayers(c, n, "Sub2"); };
  t["Div"] = [](ImportContext& c, const OnnxNodeDef& n) { elementwiseOfLayers(c, n, "Div2"); };
}

}  // namespace netsmith::onnx_import
