#include "engine/export/onnx_pooling.h"

#include <algorithm>

#include "engine/core/error.h"

namespace netsmith {

OnnxPoolingWindow onnxPoolingWindow(const OnnxLayerContext& c) {
  const OpParams p = c.params();
  const Shape& x = c.node.inputShapes.at(0);
  OnnxPoolingWindow w{p.ints("kernel"), p.ints("stride"), p.ints("pad")};
  for (int a = 0; a < 2; ++a) {
    const int64_t in = x[1 + a], out = c.node.outputShape[1 + a];
    w.endPad[a] = std::max(w.pad[a], (out - 1) * w.stride[a] + w.kernel[a] - in - w.pad[a]);
    NS_CHECK((in + w.pad[a] + w.endPad[a] - w.kernel[a]) / w.stride[a] + 1 == out,
             "layer '{}' ({}): its window geometry along {} has no exact ONNX equivalent", c.node.id, c.node.schema->name,
             a == 0 ? "height" : "width");
    w.overhang = w.overhang || w.endPad[a] > w.pad[a];
  }
  return w;
}

}  // namespace netsmith
