// Slice in ONNX: Slice over axes 1..k with the clamped, non-negative starts and ends (the shapes
// are fixed, so the ranges are exact).
#include "engine/export/onnx_layers.h"
#include "engine/ops/slice/slice_view.h"

namespace netsmith::onnx_export {

void register_slice(OnnxLayerTable& table) {
  addOnnxMapping(table, "Slice", [](OnnxLayerContext& c) {
    const auto ranges = ops::sliceRanges(c.node.inputShapes.at(0), c.params());
    std::vector<int64_t> starts, ends, axes, steps;
    for (size_t d = 0; d < ranges.size(); ++d) {
      starts.push_back(ranges[d].start);
      ends.push_back(ranges[d].start + (ranges[d].size - 1) * ranges[d].step + 1);
      axes.push_back(static_cast<int64_t>(d) + 1);
      steps.push_back(ranges[d].step);
    }
    c.addNode("Slice", {c.inputs.at(0), c.addInt64s("starts", starts), c.addInt64s("ends", ends),
                        c.addInt64s("axes", axes), c.addInt64s("steps", steps)},
              {c.output});
  });
}

}  // namespace netsmith::onnx_export
