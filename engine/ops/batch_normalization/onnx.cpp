// BatchNormalization in ONNX: BatchNormalization with the running mean and variance
// (inference). Netsmith's blobs are beta, gamma, mean, var; ONNX reads scale (gamma) first.
#include "engine/export/onnx_layers.h"

namespace netsmith::onnx_export {

void register_batch_normalization(OnnxLayerTable& table) {
  addOnnxMapping(table, "BatchNormalization", [](OnnxLayerContext& c) {
    const OpParams p = c.params();
    const char* names[] = {"beta", "gamma", "mean", "var"};
    std::vector<std::string> ins{c.inputs.at(0)};
    for (size_t b : {1, 0, 2, 3}) ins.push_back(c.addFloats(names[b], c.blobs.at(b)->shape(), c.blobs.at(b)->data()));
    c.addNode("BatchNormalization", ins, {c.output},
              {OnnxAttribute::real("epsilon", static_cast<float>(p.number("eps"))),
               OnnxAttribute::real("momentum", static_cast<float>(p.number("decay_rate")))});
  });
}

}  // namespace netsmith::onnx_export
