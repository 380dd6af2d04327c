// ChannelShuffle in ONNX: Reshape to (N, ..., group, C/group, ...), Transpose the two, Reshape back.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_channel_shuffle(OnnxLayerTable& table) {
  addOnnxMapping(table, "ChannelShuffle", [](OnnxLayerContext& c) {
    const Shape& x = c.node.inputShapes.at(0);
    const int64_t axis = c.params().integer("axis"), group = c.params().integer("group");
    Shape split;
    std::vector<int64_t> perm{0};
    for (int64_t d = 0; d < static_cast<int64_t>(x.size()); ++d) {
      if (d == axis) {
        split.push_back(group);
        split.push_back(x[d] / group);
        perm.push_back(d + 2);
        perm.push_back(d + 1);
      } else {
        split.push_back(x[d]);
        perm.push_back(static_cast<int64_t>(split.size()));
      }
    }
    const std::string grouped = c.local("grouped"), swapped = c.local("swapped");
    c.addNode("Reshape", {c.inputs.at(0), c.addInt64s("split_shape", onnxBatchShape(split))}, {grouped}, {}, "split");
    c.addNode("Transpose", {grouped}, {swapped}, {OnnxAttribute::integers("perm", perm)}, "swap");
    c.addNode("Reshape", {swapped, c.addInt64s("shape", onnxBatchShape(x))}, {c.output});
  });
}

}  // namespace netsmith::onnx_export
