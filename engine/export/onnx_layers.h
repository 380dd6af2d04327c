// Note [ONNX layer table]: how each layer type of the op registry becomes standard ONNX operators
// (opset kOnnxOpset), one entry per op name. Each entry lives in its op's own folder, as
// engine/ops/<op>/onnx.cpp defining `void netsmith::onnx_export::register_<op>(OnnxLayerTable&)`
// (Note [Op folders]); the calls are generated from the folder names into registerOnnxMappings(),
// so this file and onnx_layers.cpp hold only the shared machinery. An op without an entry cannot
// be exported: the exporter names the layer. tst_onnx_layers checks that every registered op has
// an entry, so a new layer folder without one fails the tests rather than a user's export.
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
#include "engine/op_interface/op_schema.h"
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

  OpParams params() const { return OpParams(node.params); }
  // A name for an intermediate tensor or initializer of this layer: "<layer id>/<what>".
  std::string local(const std::string& what) const { return node.id + "/" + what; }
  void addNode(std::string opType, std::vector<std::string> ins, std::vector<std::string> outs,
               std::vector<OnnxAttribute> attrs = {}, const std::string& suffix = "");
  // One ONNX node from the layer's first input to its output.
  void unary(const char* opType, std::vector<OnnxAttribute> attrs = {});
  // Adds a float initializer with `dims` (the data must have numel(dims) values).
  std::string addFloats(const std::string& what, Shape dims, const float* data);
  // A float initializer of one value (shape (), broadcast by the operator that reads it).
  std::string addScalar(const std::string& what, float value);
  std::string addInt64s(const std::string& what, std::vector<int64_t> values);
  // The parameter `name` (a per-sample axis, as Netsmith's params count) as an ONNX axis, which
  // counts the batch axis.
  int64_t batchAxis(const std::string& name = "axis") const { return params().integer(name) + 1; }
  // Note [Opset per model]: the model declares at least `opset` (at most kOnnxMaxOpset).
  void requireOpset(int64_t opset);
};

using OnnxLayerMapping = std::function<void(OnnxLayerContext&)>;
using OnnxLayerTable = std::map<std::string, OnnxLayerMapping>;

// For an op folder's onnx.cpp: the mapping of layer type `op`. Throws on a second mapping.
void addOnnxMapping(OnnxLayerTable& table, const std::string& op, OnnxLayerMapping mapping);

// Every op folder's mapping (generated from engine/ops/*/onnx.cpp; Note [ONNX layer table]).
void registerOnnxMappings(OnnxLayerTable& table);

// The table, keyed by OpSchema::name; built once, on first use, thread-safe.
const OnnxLayerTable& onnxLayerTable();

// Reshape's target: 0 keeps the batch axis (ONNX copies input dimension 0), then the per-sample
// shape Netsmith inferred.
std::vector<int64_t> onnxBatchShape(const Shape& perSample);

// Builds the ONNX graph of a trained network. blobs(nodeIndex, blobIndex) returns the trained
// value of that blob. Error names the layer (id and type) that has no ONNX equivalent, or whose
// settings ONNX cannot express exactly.
OnnxGraph buildOnnxGraph(const Graph& graph, const std::string& modelName,
                         const std::function<const Tensor*(size_t node, size_t blob)>& blobs,
                         const OnnxLayerTable& table = onnxLayerTable());

}  // namespace netsmith
