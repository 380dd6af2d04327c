// NnContext (nnabla_import_context.h) and importNnabla(): the network chosen, expanded and
// ordered, each function converted, the loss, the parameters and the counts (Note [NNabla import]).
#include "engine/import/nnabla/nnabla_importer.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <queue>

#include "engine/core/error.h"
#include "engine/import/imported_loss.h"
#include "engine/import/network_layout.h"
#include "engine/import/nnabla/learning_rate_multipliers.h"
#include "engine/import/nnabla/nnabla_import_context.h"
#include "engine/import/nnabla/nnabla_settings.h"
#include "engine/import/nnabla/repeat_expansion.h"
#include "engine/project/graph.h"

namespace netsmith::nnabla_import {

namespace {

bool isLossType(const std::string& type) {
  static const std::set<std::string> losses{"SoftmaxCrossEntropy", "SigmoidCrossEntropy", "BinaryCrossEntropy",
                                            "SquaredError",        "HuberLoss",           "AbsoluteError",
                                            "KLMultinomial",       "CategoricalCrossEntropy"};
  return losses.count(type) > 0;
}

std::string listOf(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
  return s;
}

int64_t elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

const NnNetwork& chooseNetwork(const NnablaFile& file, const std::string& wanted) {
  std::vector<std::string> names;
  for (const NnNetwork& n : file.networks) names.push_back(n.name);
  NS_CHECK(!file.networks.empty(), "{}: the file defines no network", file.path);
  auto byName = [&](const std::string& name) -> const NnNetwork* {
    for (const NnNetwork& n : file.networks)
      if (n.name == name) return &n;
    return nullptr;
  };
  if (!wanted.empty()) {
    const NnNetwork* n = byName(wanted);
    NS_CHECK(n, "{}: --network: no network '{}' (the file has {})", file.path, wanted, listOf(names));
    return *n;
  }
  for (const NnOptimizer& o : file.optimizers)
    if (const NnNetwork* n = byName(o.networkName)) return *n;
  for (const NnExecutor& e : file.executors)
    if (const NnNetwork* n = byName(e.networkName)) return *n;
  NS_CHECK(file.networks.size() == 1,
           "{}: the file has {} networks ({}) and no optimizer or executor names one: choose it with --network NAME", file.path,
           file.networks.size(), listOf(names));
  return file.networks.front();
}

// Functions in dependency order, file order kept where it allows (Kahn's algorithm).
std::vector<const NnFunction*> dependencyOrder(const NnNetwork& net) {
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < net.functions.size(); ++i)
    for (const std::string& o : net.functions[i].outputs) {
      const auto [it, fresh] = producer.emplace(o, i);
      NS_CHECK(fresh, "{}: function '{}' (type {}): variable '{}' is also written by function '{}'", net.functions[i].place.text(),
               net.functions[i].name, net.functions[i].type, o, net.functions[it->second].name);
    }
  std::vector<std::vector<size_t>> readers(net.functions.size());
  std::vector<int> waiting(net.functions.size(), 0);
  for (size_t i = 0; i < net.functions.size(); ++i)
    for (const std::string& in : net.functions[i].inputs) {
      const auto p = producer.find(in);
      if (p == producer.end()) continue;
      readers[p->second].push_back(i);
      ++waiting[i];
    }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < net.functions.size(); ++i)
    if (waiting[i] == 0) ready.push(i);
  std::vector<const NnFunction*> order;
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(&net.functions[i]);
    for (size_t r : readers[i])
      if (--waiting[r] == 0) ready.push(r);
  }
  for (size_t i = 0; i < net.functions.size(); ++i)
    NS_CHECK(waiting[i] == 0, "{}: function '{}' (type {}) is part of a cycle: a network is a graph without loops", net.functions[i].place.text(),
             net.functions[i].name, net.functions[i].type);
  return order;
}

}  // namespace

// --- NnContext -----------------------------------------------------------------------------------

NnContext::NnContext(const NnablaFile& file, const NnNetwork& network, const OpRegistry& registry)
    : m_file(file), m_network(network), m_registry(registry) {
  for (const NnVariable& v : network.variables) m_variables[v.name] = &v;
  for (const NnablaParameter& p : file.parameters) m_parameterValues[p.name] = &p;
}

void NnContext::fail(const NnFunction& f, const std::string& what) const {
  throw Error(format("{}: function '{}' (type {}): {}", f.place.text(), f.name, f.type, what));
}

void NnContext::unsupported(const NnFunction& f, const std::string& why) const {
  fail(f, format("no Netsmith layer computes {}{}", f.type, why.empty() ? "" : " " + why));
}

const NnVariable* NnContext::variable(const std::string& name) const {
  const auto it = m_variables.find(name);
  return it == m_variables.end() ? nullptr : it->second;
}

void NnContext::expectInputs(const NnFunction& f, size_t least, size_t most) const {
  if (f.inputs.size() < least || f.inputs.size() > most)
    fail(f, least == most ? format("expected {} inputs, found {}", least, f.inputs.size())
                          : format("expected {} to {} inputs, found {}", least, most, f.inputs.size()));
  if (f.outputs.size() != 1) fail(f, format("expected one output, found {}", f.outputs.size()));
}

const std::string& NnContext::layerInput(const NnFunction& f, size_t i) const {
  if (!hasInput(f, i)) fail(f, format("input {} is missing", i));
  const auto it = m_values.find(f.inputs[i]);
  if (it != m_values.end()) return it->second;
  const NnVariable* v = variable(f.inputs[i]);
  if (v && v->type == "Parameter")
    fail(f, format("reads parameter '{}' as its input {}; Netsmith layers take parameters only as their own weights", f.inputs[i], i));
  fail(f, format("reads '{}', which no function of the network computes and which is not its input", f.inputs[i]));
}

const Shape& NnContext::inputShape(const NnFunction& f, size_t i) const {
  return const_cast<NnContext*>(this)->made(layerInput(f, i)).shape;
}

std::vector<int64_t> NnContext::parameterShape(const NnFunction& f, size_t i) const {
  if (!hasInput(f, i)) fail(f, format("parameter input {} is missing", i));
  const NnVariable* v = variable(f.inputs[i]);
  if (!v) fail(f, format("reads '{}', which the network does not declare", f.inputs[i]));
  if (v->type != "Parameter") fail(f, format("input {} ('{}') is a {} where a parameter is expected", i, f.inputs[i], v->type));
  if (v->hasShape) {
    for (int64_t d : v->shape)
      if (d < 1 || d > (int64_t{1} << 31))
        fail(f, format("parameter '{}' has dimension {} in its declared shape", v->name, d));
    return v->shape;
  }
  const auto p = m_parameterValues.find(v->name);
  if (p == m_parameterValues.end()) fail(f, format("parameter '{}' has no shape and no value in the file", v->name));
  return p->second->dims;
}

NnMade& NnContext::made(const std::string& id) {
  const auto it = m_nodeIndex.find(id);
  NS_CHECK(it != m_nodeIndex.end(), "internal: no imported node '{}'", id);
  return m_nodes[it->second];
}

void NnContext::addLayer(const NnFunction& f, const std::string& type, const std::vector<size_t>& data, Json params,
                         const std::vector<std::pair<std::string, size_t>>& blobs) {
  const OpSchema* schema = m_registry.find(type);
  if (!schema) unsupported(f, format("(it would be a {} layer, which this build does not have)", type));
  NnMade node;
  std::vector<Shape> shapes;
  for (size_t i : data) {
    node.inputs.push_back(layerInput(f, i));
    shapes.push_back(made(node.inputs.back()).shape);
  }
  try {
    const Json filled = validateParams(*schema, params, "params");
    const OpParams p(filled);
    node.shape = schema->inferShape(shapes, p);
    const std::vector<ParamBlob> expected = schema->parameterBlobs ? schema->parameterBlobs(shapes, p) : std::vector<ParamBlob>{};
    NS_CHECK(expected.size() == blobs.size(), "the {} layer has {} parameters where the function has {}", type, expected.size(),
             blobs.size());
    for (const ParamBlob& b : expected) {
      const auto it = std::find_if(blobs.begin(), blobs.end(), [&](const auto& x) { return x.first == b.name; });
      NS_CHECK(it != blobs.end(), "internal: no parameter input for the {} layer's {}", type, b.name);
      const std::vector<int64_t> declared = parameterShape(f, it->second);
      NS_CHECK(elements(declared) == numel(b.shape), "its {} '{}' has shape ({}) but the {} layer's {} is ({})", b.name,
               f.inputs[it->second], shapeToString(Shape(declared.begin(), declared.end())), type, b.name, shapeToString(b.shape));
      node.blobSources.emplace_back(b.name, f.inputs[it->second]);
    }
  } catch (const Error& e) {
    std::string shapesText;
    for (size_t i = 0; i < shapes.size(); ++i) shapesText += (i ? " and " : "") + std::string("(") + shapeToString(shapes[i]) + ")";
    fail(f, format("as a Netsmith {} layer{}: {}", type, shapesText.empty() ? "" : " on " + shapesText, e.what()));
  }
  // The file says what shape each variable has: the layer must agree.
  const NnVariable* out = variable(f.outputs.at(0));
  if (out && out->hasShape && out->shape.size() >= 1) {
    const Shape declared(out->shape.begin() + 1, out->shape.end());
    if (declared != node.shape)
      fail(f, format("the file declares its output '{}' as ({}) per sample, but as a Netsmith {} layer it is ({})", out->name,
                     shapeToString(declared), type, shapeToString(node.shape)));
  }
  node.spec.id = uniqueId(f.name);
  node.spec.type = type;
  node.spec.params = std::move(params);
  const std::string id = node.spec.id;
  m_nodeIndex[id] = m_nodes.size();
  m_nodes.push_back(std::move(node));
  m_values[f.outputs[0]] = id;
}

void NnContext::alias(const NnFunction& f, size_t i) { m_values[f.outputs.at(0)] = layerInput(f, i); }

void NnContext::addLoss(const NnFunction& f, const std::string& type, Json params) {
  if (!m_registry.find(type)) unsupported(f, format("(it would be a {} loss, which this build does not have)", type));
  expectInputs(f, 2, 2);
  NnLoss loss;
  loss.function = &f;
  loss.type = type;
  loss.params = std::move(params);
  loss.prediction = layerInput(f, 0);
  // The target is the dataset's (NNC's data variable "y"); one the network computes cannot be.
  if (m_values.count(f.inputs[1]))
    fail(f, format("its target '{}' is computed by the network; a Netsmith loss compares with the dataset's target", f.inputs[1]));
  m_losses.push_back(std::move(loss));
}

void NnContext::addInput(const std::string& name) {
  const NnVariable* v = variable(name);
  NS_CHECK(v, "internal: no variable '{}'", name);
  NS_CHECK(v->hasShape && v->shape.size() >= 2,
           "{}: input variable '{}' has shape ({}); expected the batch axis (-1) and at least one more", v->place.text(), name,
           shapeToString(Shape(v->shape.begin(), v->shape.end())));
  Shape shape(v->shape.begin() + 1, v->shape.end());
  for (int64_t d : shape)
    NS_CHECK(d >= 1 && d <= (int64_t{1} << 31), "{}: input variable '{}' has dimension {}: expected sizes >= 1", v->place.text(),
             name, d);
  NnMade node;
  node.spec.id = uniqueId(name);
  node.spec.type = "Input";
  node.spec.params = {{"shape", shape}};
  node.shape = shape;
  const std::string id = node.spec.id;
  m_nodeIndex[id] = m_nodes.size();
  m_nodes.push_back(std::move(node));
  m_values[name] = id;
}

void NnContext::convert(const NnFunction& f) {
  const auto& table = nnablaConverters();
  const auto it = table.find(f.type);
  if (it == table.end()) unsupported(f, "");
  it->second(*this, f);
}

int64_t sampleAxis(const NnContext& ctx, const NnFunction& f, int64_t axis, size_t rank, const char* what) {
  const int64_t full = static_cast<int64_t>(rank) + 1;
  const int64_t a = axis < 0 ? axis + full : axis;
  if (a < 1 || a >= full)
    ctx.fail(f, format("{} {} is {} of a {}-axis input: Netsmith layers work on each sample, so the batch axis (0) cannot be one",
                       what, axis, a == 0 ? "the batch axis" : "out of range", full));
  return a - 1;
}

// --- importNnabla ----------------------------------------------------------------------------------

NnablaImport importNnabla(const NnablaFile& file, const NnablaImportOptions& options, const OpRegistry& registry) {
  const NnNetwork& chosen = chooseNetwork(file, options.network);
  NnablaImport result;
  result.networkName = chosen.name;

  // Note [NNabla import]: an unknown function type is the first thing said, with the others.
  {
    std::vector<std::string> unknown;
    for (const NnFunction& f : chosen.functions)
      if (f.type != "RepeatStart" && f.type != "RepeatEnd" && !nnablaConverters().count(f.type) &&
          std::find(unknown.begin(), unknown.end(), f.type) == unknown.end())
        unknown.push_back(f.type);
    for (const NnFunction& f : chosen.functions) {
      if (unknown.empty() || f.type != unknown.front()) continue;
      std::vector<std::string> others(unknown.begin() + 1, unknown.end());
      throw Error(format("{}: network '{}': function '{}' (type {}): no Netsmith layer computes {}{}", f.place.text(), chosen.name,
                         f.name, f.type, f.type, others.empty() ? "" : format(" (nor {}, which the network also uses)", listOf(others))));
    }
  }

  std::set<std::string> parameterNames;
  for (const NnablaParameter& p : file.parameters) parameterNames.insert(p.name);
  const NnNetwork net = expandRepeats(chosen, parameterNames);
  const std::vector<const NnFunction*> order = dependencyOrder(net);
  result.functions = static_cast<int64_t>(order.size());
  NnContext ctx(file, net, registry);

  // The Input: read by a function, computed by none, not a parameter, not only a loss's target.
  std::set<std::string> computed, asData, asTarget;
  for (const NnFunction* f : order) computed.insert(f->outputs.begin(), f->outputs.end());
  for (const NnFunction* f : order)
    for (size_t i = 0; i < f->inputs.size(); ++i) {
      const NnVariable* v = ctx.variable(f->inputs[i]);
      if (computed.count(f->inputs[i]) || (v && v->type == "Parameter")) continue;
      (isLossType(f->type) && i == 1 ? asTarget : asData).insert(f->inputs[i]);
    }
  std::vector<std::string> inputs(asData.begin(), asData.end());
  NS_CHECK(!inputs.empty(), "{}: network '{}' reads no input variable", net.place.text(), net.name);
  NS_CHECK(inputs.size() == 1, "{}: network '{}' reads {} input variables ({}); a Netsmith network has one Input",
           net.place.text(), net.name, inputs.size(), listOf(inputs));
  for (const std::string& name : inputs)
    NS_CHECK(ctx.variable(name), "{}: network '{}': a function reads '{}', which is neither declared nor computed", net.place.text(),
             net.name, name);
  ctx.addInput(inputs.front());

  for (const NnFunction* f : order) ctx.convert(*f);

  // The loss (Note [Imported output head] when the network has none).
  NS_CHECK(ctx.losses().size() <= 1, "{}: network '{}' has {} losses ('{}' and '{}'); a Netsmith network has one", net.place.text(),
           net.name, ctx.losses().size(), ctx.losses()[0].function->name, ctx.losses()[1].function->name);
  std::string prediction, lossType, lossName = "loss", head, lossReason;
  bool appended = false;
  Json lossParams = Json::object();
  if (!ctx.losses().empty()) {
    const NnLoss& l = ctx.losses().front();
    prediction = l.prediction;
    lossType = l.type;
    lossParams = l.params;
    lossName = l.function->name;
    lossReason = format("the network's own loss function '{}' ({})", l.function->name, l.function->type);
    for (const NnFunction* f : order)
      for (const std::string& in : f->inputs)
        NS_CHECK(in != l.function->outputs.at(0), "{}: function '{}' (type {}) reads the loss '{}'; a Netsmith loss ends the network",
                 f->place.text(), f->name, f->type, in);
  } else {
    std::string outputVariable;
    for (const NnExecutor& e : file.executors)
      for (const NnVariableRef& o : e.outputVariables)
        if (outputVariable.empty() && ctx.values().count(o.variable)) outputVariable = o.variable;
    if (outputVariable.empty()) {
      std::set<std::string> read;
      for (const NnFunction* f : order) read.insert(f->inputs.begin(), f->inputs.end());
      for (const NnFunction* f : order)
        if (!read.count(f->outputs.at(0)) && ctx.values().count(f->outputs.at(0))) outputVariable = f->outputs.at(0);
    }
    NS_CHECK(!outputVariable.empty(), "{}: network '{}' computes nothing to train", net.place.text(), net.name);
    prediction = ctx.values().at(outputVariable);
    const ImportedLossChoice recognised = chooseImportedLoss(prediction, [&ctx](const std::string& id) {
      for (const NnMade& m : ctx.nodes())
        if (m.spec.id == id) return ImportedLayerView{&m.spec, &m.inputs, &m.shape};
      return ImportedLayerView{};
    });
    lossType = recognised.loss;
    lossReason = recognised.reason;
    appended = true;
    ctx.notes().push_back(format("network '{}' has no loss: {} appended to '{}' (the output '{}')", net.name, lossType, prediction,
                                 outputVariable));
  }
  if (options.loss != "auto") {
    const OpSchema* s = registry.find(options.loss);
    NS_CHECK(s && s->isLoss(), "--loss: '{}' is not a loss layer type (SoftmaxCrossEntropy, SquaredError, ...)", options.loss);
    if (s->name != lossType) ctx.notes().push_back(format("--loss: {} in place of {}", s->name, lossType));
    if (s->name != lossType) lossParams = Json::object();
    lossReason = s->name == lossType ? format("given with --loss (the same without it, because {})", lossReason)
                                     : format("given with --loss (without it: {}, because {})", lossType, lossReason);
    lossType = s->name;
  }
  if (appended || options.loss != "auto") {
    // A final Softmax (Sigmoid) before an appended or chosen cross-entropy of the logits becomes
    // its output head (a loss the file has is kept as the file trains it).
    const NnMade& last = ctx.made(prediction);
    bool readByOthers = false;
    for (const NnMade& m : ctx.nodes()) readByOthers = readByOthers || std::count(m.inputs.begin(), m.inputs.end(), prediction) > 0;
    const bool classVector = last.shape.size() == 1 && last.inputs.size() == 1;
    if (!readByOthers && classVector &&
        ((lossType == "SoftmaxCrossEntropy" && last.spec.type == "Softmax") || (lossType == "SigmoidCrossEntropy" && last.spec.type == "Sigmoid"))) {
      head = last.spec.id;
      ctx.notes().push_back(format("the last {} '{}' became the output head of the {} loss", last.spec.type, head, lossType));
      prediction = last.inputs[0];
    }
  }

  // Only what the loss depends on.
  std::set<std::string> needed{prediction};
  for (auto it = ctx.nodes().rbegin(); it != ctx.nodes().rend(); ++it)
    if (needed.count(it->spec.id)) needed.insert(it->inputs.begin(), it->inputs.end());
  onnx_import::ImportedNetwork& out = result.network;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> sources;
  for (const NnMade& m : ctx.nodes()) {
    if (!needed.count(m.spec.id)) {
      if (m.spec.id != head) ctx.notes().push_back(format("layer '{}' ({}) does not lead to the loss and was left out", m.spec.id, m.spec.type));
      continue;
    }
    out.network.nodes.push_back(m.spec);
    sources[m.spec.id] = m.blobSources;
    for (size_t p = 0; p < m.inputs.size(); ++p) {
      LinkSpec link{m.inputs[p], m.spec.id, std::nullopt};
      if (m.inputs.size() > 1) link.port = static_cast<int>(p);
      out.network.links.push_back(link);
    }
  }
  NodeSpec lossNode;
  lossNode.id = ctx.uniqueId(lossName);
  lossNode.type = lossType;
  lossNode.params = lossParams;
  out.network.nodes.push_back(lossNode);
  out.network.links.push_back({prediction, lossNode.id, std::nullopt});
  layOutTopToBottom(out.network);
  const Graph graph = buildGraph(out.network, registry);

  // Counts: the file's trainable parameters (by declared shape; BatchNormalization's mean and var
  // are running statistics) against the graph's.
  // A parameter that several layers read (a repeat whose parameter names carry no {id}: nnabla
  // shares it between the copies) counts once in the file; each Netsmith layer has its own copy.
  std::map<std::string, std::vector<std::string>> readers;
  for (const GraphNode& g : graph.nodes)
    for (const ParamBlob& b : g.blobs) {
      const auto& src = sources[g.id];
      const auto it = std::find_if(src.begin(), src.end(), [&](const auto& x) { return x.first == b.name; });
      NS_CHECK(it != src.end(), "internal: layer '{}' lacks the source of its {}", g.id, b.name);
      std::vector<std::string>& r = readers[it->second];
      r.push_back(g.id);
      const NnVariable* v = ctx.variable(it->second);
      if (b.trainable && r.size() == 1) result.sourceTrainableParameters += v && v->hasShape ? elements(v->shape) : numel(b.shape);
    }
  std::vector<std::string> shared;
  for (const auto& [name, layers] : readers)
    if (layers.size() > 1) shared.push_back(format("'{}' by {} layers", name, layers.size()));
  if (!shared.empty())
    ctx.notes().push_back(format("{} parameters are shared in the file (a repeat whose parameter names carry no {id}): {}{}; each "
                                 "Netsmith layer has its own copy, trained separately",
                                 shared.size(), shared.front(), shared.size() > 1 ? ", " + shared[1] + (shared.size() > 2 ? ", ..." : "") : ""));
  result.trainableParameters = graph.parameterCount;
  // Note [NNabla learning-rate multipliers]: the training optimizer's, on the layers' lr_mult.
  if (const NnOptimizer* optimizer = trainingOptimizer(file, chosen.name))
    result.notMapped = mapLearningRateMultipliers(*optimizer, graph, sources, out.network);

  // Parameter values, when the file has any: every blob by its parameter variable's name.
  if (!file.parameters.empty()) {
    std::map<std::string, const NnablaParameter*> values;
    for (const NnablaParameter& p : file.parameters) values[p.name] = &p;
    std::set<std::string> used;
    for (const GraphNode& g : graph.nodes)
      for (const ParamBlob& b : g.blobs) {
        const auto& src = sources[g.id];
        const std::string& name = std::find_if(src.begin(), src.end(), [&](const auto& x) { return x.first == b.name; })->second;
        const auto v = values.find(name);
        NS_CHECK(v != values.end(), "{}: the file holds parameter values, but none for '{}' (layer '{}', its {}): the parameters belong to another network",
                 file.path, name, g.id, b.name);
        NS_CHECK(static_cast<int64_t>(v->second->values.size()) == numel(b.shape),
                 "{}: parameter '{}' has {} values, but layer '{}' needs {} for its {} ({})", v->second->origin, name,
                 v->second->values.size(), g.id, numel(b.shape), b.name, shapeToString(b.shape));
        Tensor t(b.shape);
        if (t.size()) std::memcpy(t.data(), v->second->values.data(), static_cast<size_t>(t.size()) * sizeof(float));
        out.parameters.emplace_back(g.id + "/" + b.name, std::move(t));
        used.insert(name);
      }
    if (used.size() < values.size())
      ctx.notes().push_back(format("{} of the file's {} parameters belong to no imported layer and were not taken", values.size() - used.size(),
                                   values.size()));
  }
  out.inputShape = graph.input().outputShape;
  out.outputNode = prediction;
  out.loss = lossType;
  out.lossReason = lossReason;
  out.producer = "nnabla" + (file.version.empty() ? std::string() : " nnp " + file.version);
  out.notes = ctx.notes();
  for (const GraphNode& g : graph.nodes)
    if (g.id == prediction) result.outputShape = g.outputShape;
  return result;
}

}  // namespace netsmith::nnabla_import
