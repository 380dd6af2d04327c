// ImportContext (onnx_import_context.h) and importOnnx(): the walk over the ONNX nodes, the
// appended loss (Note [Imported output head]) and the finished network.
#include "engine/import/onnx/onnx_importer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "engine/core/error.h"
#include "engine/import/imported_loss.h"
#include "engine/import/network_layout.h"
#include "engine/import/onnx/onnx_constants.h"
#include "engine/import/onnx/onnx_import_context.h"
#include "engine/project/graph.h"

namespace netsmith::onnx_import {

Tensor tensorOf(const Shape& dims, const std::vector<float>& values) {
  Tensor t(dims);
  NS_CHECK(t.size() == static_cast<int64_t>(values.size()), "internal: {} values for a tensor of shape {}", values.size(),
           shapeToString(dims));
  if (!values.empty()) std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  return t;
}

const ConverterTable& converterTable() {
  static const ConverterTable table = [] {
    ConverterTable t;
    addLayerConverters(t);
    addShapeConverters(t);
    addNormalizationConverters(t);
    addElementwiseConverters(t);
    return t;
  }();
  return table;
}

ImportContext::ImportContext(const OnnxModel& model, const ImportOptions& options, const OpRegistry& registry)
    : m_model(model), m_options(options), m_registry(registry) {}

void ImportContext::fail(const OnnxNodeDef& n, const std::string& what) const {
  throw Error(format("{}: node '{}' (op {}): {}", m_model.path, n.name, n.opType, what));
}

void ImportContext::unsupported(const OnnxNodeDef& n, const std::string& why) const {
  fail(n, format("no Netsmith layer computes {}{}", n.opType, why.empty() ? "" : " " + why));
}

const Value& ImportContext::value(const OnnxNodeDef& n, size_t input) const {
  if (!present(n, input)) fail(n, format("input {} is missing", input));
  const auto it = m_values.find(n.inputs[input]);
  if (it == m_values.end())
    fail(n, format("reads '{}', which no earlier node computes (the file is damaged, or its nodes are not in "
                   "topological order)",
                   n.inputs[input]));
  return it->second;
}

bool ImportContext::isConstant(const OnnxNodeDef& n, size_t input) const {
  return present(n, input) && value(n, input).kind == Value::Kind::Constant;
}

const OnnxTensor& ImportContext::constant(const OnnxNodeDef& n, size_t input, const char* what) const {
  const Value& v = value(n, input);
  if (v.kind != Value::Kind::Constant)
    fail(n, format("its {} ('{}') is computed by the network; Netsmith needs it to be a constant (an initializer)", what,
                   n.inputs[input]));
  return v.constant;
}

const Value& ImportContext::layer(const OnnxNodeDef& n, size_t input) const {
  const Value& v = value(n, input);
  if (v.kind == Value::Kind::Padded)
    fail(n, format("reads the output of a Pad ('{}'); Netsmith has no Pad layer, and merges a Pad only into the "
                   "Conv or AveragePool that reads it",
                   n.inputs[input]));
  if (v.kind == Value::Kind::Constant)
    unsupported(n, format("of a constant ('{}') and a layer's output; Netsmith layers take constants only as their "
                          "parameters",
                          n.inputs[input]));
  return v;
}

void ImportContext::setLayer(const std::string& name, const std::string& node) {
  Value v;
  v.kind = Value::Kind::Layer;
  v.node = node;
  v.shape = made(node).shape;
  m_values[name] = std::move(v);
}

void ImportContext::setConstant(const std::string& name, OnnxTensor t) {
  Value v;
  v.kind = Value::Kind::Constant;
  t.name = name;
  v.constant = std::move(t);
  m_values[name] = std::move(v);
}

void ImportContext::alias(const OnnxNodeDef& n, size_t input) {
  if (n.outputs.empty()) fail(n, "has no output");
  m_values[n.outputs[0]] = value(n, input);
}

int64_t ImportContext::intAttr(const OnnxNodeDef& n, const char* key, int64_t fallback) const {
  const OnnxAttr* a = n.attr(key);
  if (!a) return fallback;
  if (a->kind != OnnxAttr::Kind::Int) fail(n, format("attribute '{}' is not an integer", key));
  return a->i;
}

float ImportContext::floatAttr(const OnnxNodeDef& n, const char* key, float fallback) const {
  const OnnxAttr* a = n.attr(key);
  if (!a) return fallback;
  if (a->kind == OnnxAttr::Kind::Int) return static_cast<float>(a->i);
  if (a->kind != OnnxAttr::Kind::Float) fail(n, format("attribute '{}' is not a number", key));
  return a->f;
}

std::string ImportContext::stringAttr(const OnnxNodeDef& n, const char* key, const std::string& fallback) const {
  const OnnxAttr* a = n.attr(key);
  if (!a) return fallback;
  if (a->kind != OnnxAttr::Kind::String) fail(n, format("attribute '{}' is not a string", key));
  return a->s;
}

std::vector<int64_t> ImportContext::intsAttr(const OnnxNodeDef& n, const char* key, std::vector<int64_t> fallback) const {
  const OnnxAttr* a = n.attr(key);
  if (!a) return fallback;
  if (a->kind != OnnxAttr::Kind::Ints) fail(n, format("attribute '{}' is not a list of integers", key));
  return a->ints;
}

void ImportContext::onlyFirstOutputUsed(const OnnxNodeDef& n) const {
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty() && !readers(n.outputs[i]).empty())
      fail(n, format("its output {} ('{}') is used; Netsmith's layer gives only the first", i, n.outputs[i]));
}

const std::vector<int>& ImportContext::readers(const std::string& name) const {
  static const std::vector<int> kNone;
  const auto it = m_readers.find(name);
  return it == m_readers.end() ? kNone : it->second;
}

MadeNode& ImportContext::made(const std::string& id) {
  const auto it = m_nodeIndex.find(id);
  NS_CHECK(it != m_nodeIndex.end(), "internal: no imported node '{}'", id);
  return m_nodes[it->second];
}

std::string ImportContext::addLayer(const OnnxNodeDef& n, const std::string& type, const std::vector<const Value*>& inputs,
                                    Json params, std::vector<std::pair<std::string, Tensor>> blobs) {
  const OpSchema* schema = m_registry.find(type);
  if (!schema) unsupported(n, format("(it would be a {} layer, which this build does not have)", type));
  Json filled;
  std::vector<Shape> shapes;
  MadeNode node;
  try {
    filled = validateParams(*schema, params, "params");
    for (const Value* v : inputs) {
      NS_CHECK(v->kind == Value::Kind::Layer, "internal: a {} input that is not a layer's output", type);
      shapes.push_back(v->shape);
      node.inputs.push_back(v->node);
    }
    const OpParams p(filled);
    node.shape = schema->inferShape(shapes, p);
    const std::vector<ParamBlob> expected = schema->parameterBlobs ? schema->parameterBlobs(shapes, p) : std::vector<ParamBlob>{};
    for (const ParamBlob& b : expected) {
      auto it = std::find_if(blobs.begin(), blobs.end(), [&](const auto& x) { return x.first == b.name; });
      NS_CHECK(it != blobs.end(), "internal: no value for {}'s parameter {}", type, b.name);
      NS_CHECK(it->second.shape() == b.shape, "its {} has shape ({}) but the {} layer needs ({})", b.name,
               shapeToString(it->second.shape()), type, shapeToString(b.shape));
    }
    NS_CHECK(blobs.size() == expected.size(), "internal: {} values for the {} parameters of a {} layer", blobs.size(),
             expected.size(), type);
  } catch (const Error& e) {
    std::string shapesText;
    for (size_t i = 0; i < shapes.size(); ++i) shapesText += (i ? " and " : "") + std::string("(") + shapeToString(shapes[i]) + ")";
    fail(n, format("as a Netsmith {} layer{}: {}", type, shapesText.empty() ? "" : " on " + shapesText, e.what()));
  }
  node.schema = schema;
  node.spec.id = uniqueId(n.name);
  node.spec.type = type;
  node.spec.params = std::move(params);
  node.blobs = std::move(blobs);
  const std::string id = node.spec.id;
  m_nodeIndex[id] = m_nodes.size();
  m_nodes.push_back(std::move(node));
  if (!n.outputs.empty()) setLayer(n.outputs[0], id);
  return id;
}

void ImportContext::addInput() {
  if (m_model.inputs.size() != 1) {
    std::string names;
    for (const auto& i : m_model.inputs) names += (names.empty() ? "" : ", ") + ("'" + i.name + "'");
    throw Error(format("{}: the model has {} inputs{}{}; a Netsmith network has one Input", m_model.path,
                       m_model.inputs.size(), names.empty() ? "" : " ", names));
  }
  const OnnxValueInfo& in = m_model.inputs[0];
  if (in.elementType != 1 && in.elementType != 0)
    throw Error(format("{}: input '{}' has ONNX element type {}; Netsmith networks take float32 inputs", m_model.path,
                       in.name, in.elementType));
  Shape shape;
  if (m_options.inputShape) {
    shape = *m_options.inputShape;
    if (in.hasShape) {
      NS_CHECK(in.dims.size() == shape.size() + 1, "{}: --input-shape ({}) has {} axes but input '{}' has {} per sample",
               m_model.path, shapeToString(shape), shape.size(), in.name, in.dims.size() - 1);
      for (size_t a = 1; a < in.dims.size(); ++a)
        NS_CHECK(in.dims[a] < 0 || in.dims[a] == shape[a - 1],
                 "{}: --input-shape ({}) differs from input '{}' ({}) on axis {}", m_model.path, shapeToString(shape),
                 in.name, dimsText(in.dims), a);
    }
  } else {
    NS_CHECK(in.hasShape, "{}: input '{}' has no shape in the file: give it with --input-shape C,H,W", m_model.path, in.name);
    NS_CHECK(in.dims.size() >= 2, "{}: input '{}' has shape ({}): a batch axis and at least one more are needed",
             m_model.path, in.name, dimsText(in.dims));
    for (size_t a = 1; a < in.dims.size(); ++a) {
      NS_CHECK(in.dims[a] > 0, "{}: input '{}' has a symbolic size '{}' on axis {}: give the size the network works at "
               "with --input-shape C,H,W",
               m_model.path, in.name, in.dimNames[a], a);
      shape.push_back(in.dims[a]);
    }
  }
  MadeNode node;
  node.schema = m_registry.find("Input");
  node.spec.id = uniqueId(in.name);
  node.spec.type = "Input";
  node.spec.params = {{"shape", shape}};
  node.shape = shape;
  m_nodeIndex[node.spec.id] = m_nodes.size();
  const std::string id = node.spec.id;
  m_nodes.push_back(std::move(node));
  setLayer(in.name, id);
}

void ImportContext::convertNode(const OnnxNodeDef& n) {
  if (!n.domain.empty() && n.domain != "ai.onnx")
    fail(n, format("is an operator of the domain '{}'; the importer reads standard ONNX operators only", n.domain));
  if (n.outputs.empty()) fail(n, "has no output");
  bool allConstant = true;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!present(n, i)) continue;
    allConstant = allConstant && value(n, i).kind == Value::Kind::Constant;
  }
  if (allConstant && canFoldConstant(n.opType)) {
    std::vector<const OnnxTensor*> ins;
    for (size_t i = 0; i < n.inputs.size(); ++i) ins.push_back(present(n, i) ? &value(n, i).constant : nullptr);
    std::vector<OnnxTensor> outs;
    try {
      outs = foldConstant(n, ins, opset());
    } catch (const Error& e) {
      throw Error(format("{}: {}", m_model.path, e.what()));
    }
    for (size_t i = 0; i < outs.size() && i < n.outputs.size(); ++i) setConstant(n.outputs[i], std::move(outs[i]));
    ++m_folded;
    return;
  }
  if (n.opType == "Shape" && present(n, 0) && value(n, 0).kind != Value::Kind::Constant) {
    std::vector<int64_t> dims{kBatchDim};
    for (int64_t d : value(n, 0).shape) dims.push_back(d);
    setConstant(n.outputs[0], shapeTensor(n, dims));
    ++m_folded;
    return;
  }
  const auto& table = converterTable();
  const auto it = table.find(n.opType);
  if (it == table.end()) unsupported(n);
  it->second(*this, n);
}

ImportedNetwork ImportContext::run() {
  for (size_t i = 0; i < m_model.nodes.size(); ++i)
    for (const std::string& name : m_model.nodes[i].inputs)
      if (!name.empty()) m_readers[name].push_back(static_cast<int>(i));
  NS_CHECK(m_model.outputs.size() == 1, "{}: the model has {} outputs; a Netsmith network has one output", m_model.path,
           m_model.outputs.size());
  const std::string outputName = m_model.outputs[0].name;
  m_readers[outputName].push_back(-1);
  for (const OnnxTensor& t : m_model.initializers) setConstant(t.name, t);
  addInput();

  // Note [ONNX import]: an op type that no converter or folding knows is the first thing said:
  // the message names its first node, and lists the model's other unknown op types with it.
  std::set<std::string> unknown;
  for (const OnnxNodeDef& n : m_model.nodes)
    if (!converterTable().count(n.opType) && !canFoldConstant(n.opType) && n.opType != "Shape") unknown.insert(n.opType);
  for (const OnnxNodeDef& n : m_model.nodes) {
    if (!unknown.count(n.opType)) continue;
    std::set<std::string> others = unknown;
    others.erase(n.opType);
    std::string list;
    for (const auto& o : others) list += (list.empty() ? "" : ", ") + o;
    unsupported(n, others.empty() ? "" : format("(nor {}, which the model also uses)", list));
  }
  for (size_t i = 0; i < m_model.nodes.size(); ++i)
    if (!absorbed(static_cast<int>(i))) convertNode(m_model.nodes[i]);

  NS_CHECK(has(outputName), "{}: the model's output '{}' is computed by no node", m_model.path, outputName);
  const Value& out = m_values.at(outputName);
  NS_CHECK(out.kind == Value::Kind::Layer, "{}: the model's output '{}' is {}; a Netsmith network's output is a layer's",
           m_model.path, outputName, out.kind == Value::Kind::Constant ? "a constant" : "a Pad's output");

  // Note [Imported output head]
  std::string prediction = out.node;
  const MadeNode& last = made(prediction);
  const bool classVector = last.shape.size() == 1 && last.inputs.size() == 1;
  const bool endsInSoftmax = last.spec.type == "Softmax" && classVector;
  const bool endsInSigmoid = last.spec.type == "Sigmoid" && classVector;
  const ImportedLossChoice recognised = chooseImportedLoss(prediction, [this](const std::string& id) {
    const auto it = m_nodeIndex.find(id);
    if (it == m_nodeIndex.end()) return ImportedLayerView{};
    const MadeNode& m = m_nodes[it->second];
    return ImportedLayerView{&m.spec, &m.inputs, &m.shape};
  });
  // A Netsmith model exported and imported again gets its own loss back (a regression ending in
  // an Affine stays one).
  std::string autoLoss = recognised.loss, autoReason = recognised.reason;
  const auto exported = m_model.metadata.find("netsmith.loss");
  if (const OpSchema* own = exported == m_model.metadata.end() ? nullptr : m_registry.find(exported->second);
      own && own->isLoss()) {
    autoLoss = own->name;
    autoReason = format("the model was exported by Netsmith from a network that ends in {} (its metadata netsmith.loss)",
                        autoLoss);
  }
  std::string loss = m_options.loss == "auto" ? autoLoss : m_options.loss;
  const OpSchema* lossSchema = m_registry.find(loss);
  NS_CHECK(lossSchema && lossSchema->isLoss(), "--loss: '{}' is not a loss layer type (SoftmaxCrossEntropy, SquaredError, ...)", loss);
  loss = lossSchema->name;
  const std::string lossReason =
      m_options.loss == "auto" ? autoReason
      : loss == autoLoss       ? format("given with --loss (the same without it, because {})", autoReason)
                               : format("given with --loss (without it: {}, because {})", autoLoss, autoReason);
  bool readByOthers = false;
  for (const MadeNode& m : m_nodes)
    readByOthers = readByOthers || std::count(m.inputs.begin(), m.inputs.end(), prediction) > 0;
  std::string head;
  const OutputHead lossHead = lossSchema->outputHead;  // Note [Output head]
  if (!readByOthers && ((lossHead == OutputHead::Softmax && endsInSoftmax) || (lossHead == OutputHead::Sigmoid && endsInSigmoid))) {
    head = last.spec.id;
    note(format("the model's last {} '{}' became the output head of the {} loss", last.spec.type, last.spec.id, loss));
    prediction = last.inputs[0];
  }

  // Only what the output depends on: layers whose values nothing reads are left out.
  std::set<std::string> needed{prediction};
  for (auto it = m_nodes.rbegin(); it != m_nodes.rend(); ++it)
    if (needed.count(it->spec.id)) needed.insert(it->inputs.begin(), it->inputs.end());
  ImportedNetwork result;
  for (const MadeNode& m : m_nodes) {
    if (!needed.count(m.spec.id)) {
      if (m.spec.type != "Input" && m.spec.id != head) note(format("layer '{}' ({}) does not contribute to the output and was left out", m.spec.id, m.spec.type));
      continue;
    }
    result.network.nodes.push_back(m.spec);
    for (size_t p = 0; p < m.inputs.size(); ++p) {
      LinkSpec link{m.inputs[p], m.spec.id, std::nullopt};
      if (m.inputs.size() > 1) link.port = static_cast<int>(p);
      result.network.links.push_back(link);
    }
  }
  NodeSpec lossNode;
  lossNode.id = uniqueId("loss");
  lossNode.type = loss;
  result.network.nodes.push_back(lossNode);
  result.network.links.push_back({prediction, lossNode.id, std::nullopt});
  layOutTopToBottom(result.network);

  // The finished network must be valid; its blobs, in graph order, are the parameters.
  const Graph graph = buildGraph(result.network, m_registry);
  for (const GraphNode& g : graph.nodes) {
    if (g.blobs.empty()) continue;
    MadeNode& m = made(g.id);
    for (const ParamBlob& b : g.blobs) {
      auto it = std::find_if(m.blobs.begin(), m.blobs.end(), [&](const auto& x) { return x.first == b.name; });
      NS_CHECK(it != m.blobs.end() && it->second.shape() == b.shape, "internal: layer '{}' lacks its {}", g.id, b.name);
      result.parameters.emplace_back(g.id + "/" + b.name, std::move(it->second));
    }
  }
  result.inputShape = graph.input().outputShape;
  result.outputNode = prediction;
  result.loss = loss;
  result.lossReason = lossReason;
  result.opset = m_model.opset;
  result.producer = m_model.producer;
  result.notes = m_notes;
  result.foldedNodes = m_folded;
  return result;
}

ImportedNetwork importOnnx(const OnnxModel& model, const ImportOptions& options, const OpRegistry& registry) {
  ImportContext context(model, options, registry);
  return context.run();
}

}  // namespace netsmith::onnx_import
