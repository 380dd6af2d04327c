#include "engine/export/onnx_layers.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith {

void OnnxLayerContext::addNode(std::string opType, std::vector<std::string> ins, std::vector<std::string> outs,
                               std::vector<OnnxAttribute> attrs, const std::string& suffix) {
  graph.nodes.push_back({suffix.empty() ? node.id : node.id + "/" + suffix, std::move(opType), std::move(ins),
                         std::move(outs), std::move(attrs)});
}

std::string OnnxLayerContext::addFloats(const std::string& what, Shape dims, const float* data) {
  OnnxInitializer init;
  init.name = local(what);
  init.floats.assign(data, data + numel(dims));
  init.dims = std::move(dims);
  graph.initializers.push_back(std::move(init));
  return graph.initializers.back().name;
}

std::string OnnxLayerContext::addInt64s(const std::string& what, std::vector<int64_t> values) {
  OnnxInitializer init;
  init.name = local(what);
  init.isInt64 = true;
  init.dims = Shape{static_cast<int64_t>(values.size())};
  init.int64s = std::move(values);
  graph.initializers.push_back(std::move(init));
  return graph.initializers.back().name;
}

void OnnxLayerContext::unary(const char* opType, std::vector<OnnxAttribute> attrs) {
  addNode(opType, {inputs.at(0)}, {output}, std::move(attrs));
}

std::string OnnxLayerContext::addScalar(const std::string& what, float value) {
  return addFloats(what, Shape{}, &value);
}

void OnnxLayerContext::requireOpset(int64_t opset) {
  NS_CHECK(opset <= kOnnxMaxOpset, "internal: layer '{}' ({}) asks for ONNX opset {}; the mappings stop at {}", node.id,
           node.schema->name, opset, kOnnxMaxOpset);
  graph.opset = std::max(graph.opset, opset);
}

std::vector<int64_t> onnxBatchShape(const Shape& perSample) {
  std::vector<int64_t> s{0};
  s.insert(s.end(), perSample.begin(), perSample.end());
  return s;
}

void addOnnxMapping(OnnxLayerTable& table, const std::string& op, OnnxLayerMapping mapping) {
  NS_CHECK(table.emplace(op, std::move(mapping)).second, "two ONNX mappings for layer type '{}'", op);
}

const OnnxLayerTable& onnxLayerTable() {
  static const OnnxLayerTable table = [] {
    OnnxLayerTable t;
    registerOnnxMappings(t);
    return t;
  }();
  return table;
}

OnnxGraph buildOnnxGraph(const Graph& graph, const std::string& modelName,
                         const std::function<const Tensor*(size_t node, size_t blob)>& blobs,
                         const OnnxLayerTable& table) {
  OnnxGraph g;
  g.name = modelName;
  g.inputShape = graph.input().outputShape;
  g.outputShape = graph.prediction().outputShape;
  std::vector<std::string> names(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    const auto it = table.find(node.schema->name);
    NS_CHECK(it != table.end(),
             "layer '{}' ({}) has no ONNX equivalent: remove it or replace it by layers that have one, then retrain",
             node.id, node.schema->name);
    std::string output = node.id;
    if (node.schema->isInput) output = g.inputName;
    else if (static_cast<int>(i) == graph.lossNode) output = g.outputName;
    else if (output == g.inputName || output == g.outputName) output += "_";  // keep "x" and "y" for the model's ends
    OnnxLayerContext c{node, {}, output, {}, g};
    for (int p : node.inputs) c.inputs.push_back(names[static_cast<size_t>(p)]);
    for (size_t b = 0; b < node.blobs.size(); ++b) {
      const Tensor* t = blobs(i, b);
      NS_CHECK(t != nullptr, "layer '{}' ({}): its trained '{}' is missing", node.id, node.schema->name, node.blobs[b].name);
      NS_CHECK(t->shape() == node.blobs[b].shape, "layer '{}' ({}): trained '{}' has shape {}, the layer expects {}", node.id,
               node.schema->name, node.blobs[b].name, shapeToString(t->shape()), shapeToString(node.blobs[b].shape));
      c.blobs.push_back(t);
    }
    it->second(c);
    names[i] = c.output;
  }
  return g;
}

}  // namespace netsmith
