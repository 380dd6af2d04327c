// Note [ONNX layer table]: how each layer type of the op registry becomes standard ONNX operators
// (opset 13), one entry per op name. An op without an entry cannot be exported: the exporter
// names the layer. tst_onnx_export checks that every registered op has an entry, so a new layer
// folder without one fails the tests rather than a user's export.
//
// Loss layers are training-only; their entry is the output head (Note [Output head]): Softmax for
// SoftmaxCrossEntropy, Sigmoid for SigmoidCrossEntropy, Identity otherwise, giving output "y".
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/export/onnx_graph.h"
#include "engine/project/graph.h"

namespace netsmith {

// What one layer's mapping gets: the node, the ONNX names of its inputs, the name its (last)
// ONNX node must produce, its trained blobs in the schema's blob order, and the graph to add to.
struct OnnxLayerContext {
  const GraphNode& node;
  std::vector<std::string> inputs;
  std::string output;
  std::vector<const Tensor*> blobs;
  OnnxGraph& graph;

  // A name for an intermediate tensor or initializer of this layer: "<layer id>/<what>".
  std::string local(const std::string& what) const { return node.id + "/" + what; }
  void addNode(std::string opType, std::vector<std::string> ins, std::vector<std::string> outs,
               std::vector<OnnxAttribute> attrs = {}, const std::string& suffix = "");
  // Adds a float initializer with `dims` (the data must have numel(dims) values).
  std::string addFloats(const std::string& what, Shape dims, const float* data);
  std::string addInt64s(const std::string& what, std::vector<int64_t> values);
};

using OnnxLayerMapping = std::function<void(OnnxLayerContext&)>;

// The table, keyed by OpSchema::name.
const std::map<std::string, OnnxLayerMapping>& onnxLayerTable();

// Builds the ONNX graph of a trained network. blobs(nodeIndex, blobIndex) returns the trained
// value of that blob. Error names the layer (id and type) that has no ONNX equivalent, or whose
// settings ONNX cannot express exactly.
OnnxGraph buildOnnxGraph(const Graph& graph, const std::string& modelName,
                         const std::function<const Tensor*(size_t node, size_t blob)>& blobs,
                         const std::map<std::string, OnnxLayerMapping>& table = onnxLayerTable());

}  // namespace netsmith
