// The state of one ONNX import (Note [ONNX import]), shared by the converters of
// onnx_convert_*.cpp, inside engine/import only: the value each ONNX tensor name stands for, the
// Netsmith nodes made so far with their blobs, and helpers that check a node's inputs and
// attributes with messages naming the node.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/import/layer_ids.h"
#include "engine/import/onnx/onnx_importer.h"

namespace netsmith::onnx_import {

// What an ONNX tensor name stands for during the import.
struct Value {
  enum class Kind { Layer, Constant, Padded };
  Kind kind = Kind::Layer;
  std::string node;  // Layer, Padded: the Netsmith node whose output it is
  Shape shape;       // Layer, Padded: per-sample shape (of the node's output, before the padding)
  OnnxTensor constant;  // Constant
  int64_t padHeight = 0, padWidth = 0;  // Padded: zeros added on both sides (a Pad not yet merged)
  // Layer: the index of the Reshape whose output this is when no layer was made for it yet: `node`'s
  // output seen as `shape` (Note [GroupNormalization import]); -1 otherwise.
  int deferredReshape = -1;
};

// One Netsmith node made by the import, with its blobs (in the schema's blob order).
struct MadeNode {
  NodeSpec spec;
  std::vector<std::string> inputs;  // producer node ids, in port order
  Shape shape;                      // per-sample output
  std::vector<std::pair<std::string, Tensor>> blobs;  // blob name → value
  const OpSchema* schema = nullptr;
  // The ONNX nodes a pattern made this layer from ("Reshape 'a'", ...), for its note; empty for a
  // layer made from one node.
  std::vector<std::string> fusedFrom;
};

class ImportContext {
 public:
  ImportContext(const OnnxModel& model, const ImportOptions& options, const OpRegistry& registry);

  const OnnxModel& model() const { return m_model; }
  const OpRegistry& registry() const { return m_registry; }
  int64_t opset() const { return m_model.opset; }

  [[noreturn]] void fail(const OnnxNodeDef& n, const std::string& what) const;
  // "node 'X' (op Y): no Netsmith layer computes Y" + why.
  [[noreturn]] void unsupported(const OnnxNodeDef& n, const std::string& why = {}) const;

  // --- values -------------------------------------------------------------------------------
  bool has(const std::string& name) const { return m_values.count(name) > 0; }
  const Value& value(const OnnxNodeDef& n, size_t input) const;
  bool present(const OnnxNodeDef& n, size_t input) const { return input < n.inputs.size() && !n.inputs[input].empty(); }
  bool isConstant(const OnnxNodeDef& n, size_t input) const;
  const OnnxTensor& constant(const OnnxNodeDef& n, size_t input, const char* what) const;
  // A layer's output (a pending Pad is an error: only Conv and AveragePool take one).
  const Value& layer(const OnnxNodeDef& n, size_t input) const;
  void setLayer(const std::string& name, const std::string& node);
  void setConstant(const std::string& name, OnnxTensor t);
  void setValue(const std::string& name, Value v) { m_values[name] = std::move(v); }
  void alias(const OnnxNodeDef& n, size_t input = 0);  // output 0 is input `input`'s value

  // --- attributes ---------------------------------------------------------------------------
  int64_t intAttr(const OnnxNodeDef& n, const char* key, int64_t fallback) const;
  float floatAttr(const OnnxNodeDef& n, const char* key, float fallback) const;
  std::string stringAttr(const OnnxNodeDef& n, const char* key, const std::string& fallback) const;
  std::vector<int64_t> intsAttr(const OnnxNodeDef& n, const char* key, std::vector<int64_t> fallback) const;
  // Outputs beyond the first must be unused (MaxPool's indices, Dropout's mask, BN's statistics).
  void onlyFirstOutputUsed(const OnnxNodeDef& n) const;

  // --- the graph ----------------------------------------------------------------------------
  // The ONNX nodes that read `name`, as indices into model().nodes; the graph's output counts as
  // a reader that is not a node (readers() then includes -1).
  const std::vector<int>& readers(const std::string& name) const;
  // Node `index` is handled by a pattern of an earlier node: skipped when its turn comes.
  void absorb(int index) { m_absorbed.insert(index); }
  bool absorbed(int index) const { return m_absorbed.count(index) > 0; }
  int indexOf(const OnnxNodeDef& n) const { return static_cast<int>(&n - m_model.nodes.data()); }

  // Adds a Netsmith node of `type` named after `n`, reading `inputs` (layer values), with `params`
  // and `blobs`; checks the params and shapes with the op registry (an error names the node) and
  // that the blobs have the shapes the schema gives. Sets n's output 0 to it and returns its id.
  std::string addLayer(const OnnxNodeDef& n, const std::string& type, const std::vector<const Value*>& inputs,
                       Json params = Json::object(), std::vector<std::pair<std::string, Tensor>> blobs = {});
  MadeNode& made(const std::string& id);
  // The node reading nothing but the Input: made once, from the model's input.
  void addInput();
  std::vector<MadeNode>& nodes() { return m_nodes; }
  void note(std::string text) { m_notes.push_back(std::move(text)); }
  std::vector<std::string>& notes() { return m_notes; }

  // Runs every node, then returns the result (head, pruning, layout): onnx_importer.cpp.
  ImportedNetwork run();

 private:
  std::string uniqueId(const std::string& onnxName) { return m_ids.unique(onnxName); }
  void convertNode(const OnnxNodeDef& n);

  const OnnxModel& m_model;
  const ImportOptions& m_options;
  const OpRegistry& m_registry;
  std::map<std::string, Value> m_values;
  std::map<std::string, std::vector<int>> m_readers;
  std::set<int> m_absorbed;
  std::vector<MadeNode> m_nodes;
  std::map<std::string, size_t> m_nodeIndex;
  LayerIds m_ids;
  std::vector<std::string> m_notes;
  int64_t m_folded = 0;
};

// A tensor of `dims` holding `values` (host memory).
Tensor tensorOf(const Shape& dims, const std::vector<float>& values);

// The converters of one family of ops: each registers its op types in the table.
using Converter = std::function<void(ImportContext&, const OnnxNodeDef&)>;
using ConverterTable = std::map<std::string, Converter>;
void addLayerConverters(ConverterTable& table);   // onnx_convert_layers.cpp
void addShapeConverters(ConverterTable& table);   // onnx_convert_shapes.cpp
void addNormalizationConverters(ConverterTable& table);  // onnx_convert_normalization.cpp
void addElementwiseConverters(ConverterTable& table);    // onnx_convert_elementwise.cpp: Sub, Div

// Add, Sub, Mul or Div `n` of two layers' outputs as the Netsmith layer `layerType` (Add2, Sub2,
// Mul2, Div2) where it computes the same (Note [Elementwise import]); else an error naming the node.
void elementwiseOfLayers(ImportContext& c, const OnnxNodeDef& n, const std::string& layerType);

// GroupNormalization written out as Reshape, InstanceNormalization, Reshape, Mul, Add (Note
// [GroupNormalization import], onnx_convert_normalization.cpp); each returns true when it handled `n`.
// Reshape `n` of layer value `x` to the per-sample `target`, read by such an InstanceNormalization:
// its output stays a view of x, no layer made.
bool deferGroupReshape(ImportContext& c, const OnnxNodeDef& n, const Value& x, const Shape& target);
// InstanceNormalization `n` (unit scale, zero bias) of such a view: one GroupNormalization layer.
// Reading a view that does not match, it makes the Reshape's layer and returns false.
bool groupNormFromInstanceNorm(ImportContext& c, const OnnxNodeDef& n);
// Reshape `n` of that layer's (groups, rest) view back to the layer's shape.
bool groupNormReshapeBack(ImportContext& c, const OnnxNodeDef& n, const Value& x, const Shape& target);
// Mul (`scale`) or Add of a per-channel constant to that layer: its gamma or beta.
bool foldIntoGroupNorm(ImportContext& c, const OnnxNodeDef& n, bool scale);
const ConverterTable& converterTable();

}  // namespace netsmith::onnx_import
