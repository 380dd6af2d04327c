// Converters of ONNX's per-sample normalizations (Note [ONNX import]): LayerNormalization (opset
// 17), InstanceNormalization and GroupNormalization (opset 18) become the Netsmith layers of the
// same names (Note [Row normalization]); GroupNormalization written out as Reshape,
// InstanceNormalization, Reshape, Mul, Add (Netsmith's and PyTorch's exports) becomes one
// GroupNormalization (Note [GroupNormalization import]). A model that spells out another one
// (ReduceMean, Sub, Pow, ... as PyTorch writes LayerNorm below opset 17) keeps those operators,
// which the importer maps one by one or refuses.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "engine/core/error.h"
#include "engine/import/onnx/onnx_import_context.h"

namespace netsmith::onnx_import {
namespace {

// The float as the shortest decimal that reads back as the same float (1e-05, not 9.99999974737875e-06).
double shortestDecimal(float f) {
  char buf[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return std::strtod(buf, nullptr);
}

std::vector<float> valuesOf(const OnnxTensor& t) {
  std::vector<float> v;
  for (int64_t i = 0; i < t.count(); ++i) v.push_back(static_cast<float>(t.real(i)));
  return v;
}

// The constant input `i` with `count` values, or an error naming what it is.
std::vector<float> parameterValues(const ImportContext& c, const OnnxNodeDef& n, size_t i, const char* what,
                                   int64_t count, const char* expected) {
  const OnnxTensor& t = c.constant(n, i, what);
  if (t.count() != count) c.fail(n, format("its {} has {} values; {} has {}", what, t.count(), expected, count));
  return valuesOf(t);
}

void layerNormalization(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  c.onlyFirstOutputUsed(n);
  const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
  int64_t axis = c.intAttr(n, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis <= 0 || axis >= rank)
    c.unsupported(n, format("from axis {} of a rank-{} input: Netsmith normalizes within a sample, from axis 1 to {}",
                            c.intAttr(n, "axis", -1), rank, rank - 1));
  // batch_axis [0, ..., axis − 1]; gamma and beta of the per-sample shape with 1 for those axes.
  Json batchAxis = Json::array();
  for (int64_t a = 0; a < axis; ++a) batchAxis.push_back(a);
  Shape paramShape = x.shape;
  for (int64_t a = 0; a + 1 < axis; ++a) paramShape[static_cast<size_t>(a)] = 1;
  const int64_t count = numel(paramShape);
  std::vector<std::pair<std::string, Tensor>> blobs;
  const bool bias = c.present(n, 2);
  if (bias) blobs.emplace_back("beta", tensorOf(paramShape, parameterValues(c, n, 2, "bias B", count, "the normalized shape")));
  blobs.emplace_back("gamma", tensorOf(paramShape, parameterValues(c, n, 1, "scale", count, "the normalized shape")));
  c.addLayer(n, "LayerNormalization", {&x},
             {{"batch_axis", batchAxis}, {"eps", shortestDecimal(c.floatAttr(n, "epsilon", 1e-5f))}, {"no_bias", !bias}},
             std::move(blobs));
}

void instanceNormalization(ImportContext& c, const OnnxNodeDef& n) {
  if (groupNormFromInstanceNorm(c, n)) return;
  const Value& x = c.layer(n, 0);
  if (x.shape.size() < 2)
    c.unsupported(n, format("of a ({}) input: it needs (C, ...) with an axis after the channels", shapeToString(x.shape)));
  const int64_t channels = x.shape[0];
  std::vector<std::pair<std::string, Tensor>> blobs;
  blobs.emplace_back("beta", tensorOf(Shape{channels}, parameterValues(c, n, 2, "bias B", channels, "the channel count")));
  blobs.emplace_back("gamma", tensorOf(Shape{channels}, parameterValues(c, n, 1, "scale", channels, "the channel count")));
  c.addLayer(n, "InstanceNormalization", {&x}, {{"eps", shortestDecimal(c.floatAttr(n, "epsilon", 1e-5f))}},
             std::move(blobs));
}

// ONNX's GroupNormalization-18 has one scale and bias per group (each applies to the group's
// C / G channels); opset 21 made them per channel (Note [GroupNormalization in ONNX]).
void groupNormalization(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  if (x.shape.empty()) c.fail(n, "normalizes a scalar");
  const int64_t channels = x.shape[0];
  const int64_t groups = c.intAttr(n, "num_groups", 0);
  if (groups < 1 || channels % groups != 0)
    c.fail(n, format("num_groups {} does not divide the {} channels of its input", groups, channels));
  const bool perGroup = c.opset() < 21;
  const int64_t count = perGroup ? groups : channels;
  const char* expected = perGroup ? "num_groups (opset 18's per-group scale)" : "the channel count";
  std::vector<std::pair<std::string, Tensor>> blobs;
  for (const auto& [name, input, what] : {std::tuple{"beta", size_t{2}, "bias"}, std::tuple{"gamma", size_t{1}, "scale"}}) {
    const std::vector<float> v = parameterValues(c, n, input, what, count, expected);
    std::vector<float> perChannel(static_cast<size_t>(channels));
    for (int64_t ch = 0; ch < channels; ++ch)
      perChannel[static_cast<size_t>(ch)] = v[static_cast<size_t>(perGroup ? ch / (channels / groups) : ch)];
    blobs.emplace_back(name, tensorOf(Shape{channels}, perChannel));
  }
  c.addLayer(n, "GroupNormalization", {&x},
             {{"num_groups", groups}, {"eps", shortestDecimal(c.floatAttr(n, "epsilon", 1e-5f))}}, std::move(blobs));
}

// Note [GroupNormalization import]
// Netsmith's exporter (Note [GroupNormalization in ONNX]) and PyTorch's (nn.GroupNorm, opsets 11
// to 17) write GroupNormalization as Reshape (C, ...) → (G, rest), InstanceNormalization with scale
// 1 and bias 0 (the groups' statistics), Reshape back to (C, ...), Mul by gamma and Add of beta
// shaped (C, 1, ...). PyTorch's affine=False multiplies by 1 and adds 0 as single values;
// Netsmith's no_scale / no_bias leave the Mul / the Add out. These nodes become one
// GroupNormalization layer, step by step as the walk reaches them, because the file gives what
// decides the match late: PyTorch writes the InstanceNormalization's scale and bias as Constant
// nodes after the first Reshape, the target of the Reshape back as a Shape after the
// InstanceNormalization, and affine=False's 1 and 0 after that.
// - The first Reshape, read only by an InstanceNormalization that is read only by a Reshape,
//   makes no layer: its output is its input seen as (G, rest) (Value::deferredReshape).
// - That InstanceNormalization, when its scale is all 1 and its bias all 0, makes a
//   GroupNormalization (num_groups G, its epsilon, no_scale, no_bias) of the first Reshape's input;
//   its output is that layer seen as (G, rest): the same values in the same order, so whatever
//   reads it gets the right values. With another scale or bias it makes the first Reshape's layer
//   and is the InstanceNormalization it was before.
// - The Reshape back to (C, ...) is that layer.
// - A Mul of the layer's output (read by nothing else) by a per-channel constant, (C), (C, 1, ...)
//   or one value, while the layer has neither gamma nor beta, becomes its gamma; an Add, while it
//   has no beta, its beta (a Mul by exactly 1 or an Add of exactly 0 as one value adds nothing and
//   keeps no_scale / no_bias). A Mul or Add that does not fit is refused as before, naming it.
// One note names the nodes: "Reshape 'a', InstanceNormalization 'b', Reshape 'c', Mul 'd' and
// Add 'e' became one GroupNormalization layer 'b' (2 groups)".

const OnnxNodeDef& nodeAt(const ImportContext& c, int index) { return c.model().nodes[static_cast<size_t>(index)]; }

// The index of the only node reading `name`, when it is an `op` reading it as its input 0; else -1.
int soleReader(const ImportContext& c, const std::string& name, const char* op) {
  const auto& readers = c.readers(name);
  if (readers.size() != 1 || readers[0] < 0) return -1;
  const OnnxNodeDef& r = nodeAt(c, readers[0]);
  return r.opType == op && r.inputs.at(0) == name && !r.outputs.empty() ? readers[0] : -1;
}

bool madeByPattern(const MadeNode& m) { return m.spec.type == "GroupNormalization" && !m.fusedFrom.empty(); }

std::string fusedNote(const MadeNode& m) {
  std::string list;
  for (size_t i = 0; i < m.fusedFrom.size(); ++i)
    list += (i == 0 ? "" : i + 1 == m.fusedFrom.size() ? " and " : ", ") + m.fusedFrom[i];
  const int64_t groups = m.spec.params.at("num_groups").get<int64_t>();
  return format("{} became one GroupNormalization layer '{}' ({} group{})", list, m.spec.id, groups, groups == 1 ? "" : "s");
}

// Adds `n` to the nodes the layer was made from; its note is rewritten so one line names them all.
void extendNote(ImportContext& c, MadeNode& m, const OnnxNodeDef& n) {
  const std::string before = fusedNote(m);
  m.fusedFrom.push_back(format("{} '{}'", n.opType, n.name));
  for (std::string& line : c.notes())
    if (line == before) {
      line = fusedNote(m);
      return;
    }
  c.note(fusedNote(m));
}

// Input `i` is a constant of `count` values, each exactly `value`.
bool constantOf(const ImportContext& c, const OnnxNodeDef& n, size_t i, int64_t count, double value) {
  if (!c.isConstant(n, i)) return false;
  const OnnxTensor& t = c.constant(n, i, "");
  if (t.count() != count) return false;
  for (int64_t k = 0; k < count; ++k)
    if (t.real(k) != value) return false;
  return true;
}

// One value per channel of a (C, ...) value from a constant that varies along the channels only,
// aligned from the right as ONNX broadcasts: (C, 1, 1) or (1, C, 1, 1) for (C, H, W), (C) for
// (C); one value for all. nullopt for anything else.
std::optional<std::vector<float>> perChannel(const OnnxTensor& k, const Shape& x) {
  const size_t rank = x.size() + 1;  // with the batch axis
  if (k.dims.size() > rank || k.count() < 1) return std::nullopt;
  const std::vector<float> v = valuesOf(k);
  if (k.count() == 1) return std::vector<float>(static_cast<size_t>(x[0]), v[0]);
  for (size_t i = 0; i < k.dims.size(); ++i)
    if (k.dims[i] != (rank - k.dims.size() + i == 1 ? x[0] : 1)) return std::nullopt;
  return v;
}

}  // namespace

bool deferGroupReshape(ImportContext& c, const OnnxNodeDef& n, const Value& x, const Shape& target) {
  if (x.shape.empty() || x.shape != c.made(x.node).shape) return false;  // not a view of another pattern
  if (target.size() != 2 || target == x.shape || numel(target) != numel(x.shape)) return false;
  const int64_t groups = target[0];
  if (groups < 1 || x.shape[0] % groups != 0) return false;
  const int norm = soleReader(c, n.outputs[0], "InstanceNormalization");
  if (norm < 0 || soleReader(c, nodeAt(c, norm).outputs[0], "Reshape") < 0) return false;
  Value grouped = x;
  grouped.shape = target;
  grouped.deferredReshape = c.indexOf(n);
  c.setValue(n.outputs[0], std::move(grouped));
  return true;
}

bool groupNormFromInstanceNorm(ImportContext& c, const OnnxNodeDef& n) {
  if (!c.present(n, 0)) return false;
  const Value grouped = c.value(n, 0);
  if (grouped.kind != Value::Kind::Layer || grouped.deferredReshape < 0) return false;
  const OnnxNodeDef& reshape = nodeAt(c, grouped.deferredReshape);
  const Value x = c.layer(reshape, 0);
  const int64_t groups = grouped.shape[0];
  if (!constantOf(c, n, 1, groups, 1.0) || !constantOf(c, n, 2, groups, 0.0)) {
    // An InstanceNormalization of its own: the Reshape's layer after all, as without the pattern.
    c.addLayer(reshape, "Reshape", {&x}, {{"shape", grouped.shape}});
    return false;
  }
  const std::string id = c.addLayer(n, "GroupNormalization", {&x},
                                    {{"num_groups", groups},
                                     {"eps", shortestDecimal(c.floatAttr(n, "epsilon", 1e-5f))},
                                     {"no_scale", true},
                                     {"no_bias", true}});
  MadeNode& m = c.made(id);
  m.fusedFrom = {format("Reshape '{}'", reshape.name)};
  extendNote(c, m, n);
  Value view;
  view.kind = Value::Kind::Layer;
  view.node = id;
  view.shape = grouped.shape;
  c.setValue(n.outputs[0], std::move(view));
  return true;
}

bool groupNormReshapeBack(ImportContext& c, const OnnxNodeDef& n, const Value& x, const Shape& target) {
  if (x.kind != Value::Kind::Layer) return false;
  MadeNode& m = c.made(x.node);
  if (!madeByPattern(m) || x.shape == m.shape || target != m.shape) return false;
  c.setLayer(n.outputs[0], x.node);
  extendNote(c, m, n);
  return true;
}

bool foldIntoGroupNorm(ImportContext& c, const OnnxNodeDef& n, bool scale) {
  if (n.inputs.size() != 2 || !c.present(n, 0) || !c.present(n, 1) || c.isConstant(n, 0) == c.isConstant(n, 1))
    return false;
  const size_t layerInput = c.isConstant(n, 0) ? 1 : 0;
  const Value& x = c.value(n, layerInput);
  if (x.kind != Value::Kind::Layer) return false;
  MadeNode& m = c.made(x.node);
  if (!madeByPattern(m) || x.shape != m.shape) return false;
  if (!m.spec.params.at("no_bias").get<bool>() || (scale && !m.spec.params.at("no_scale").get<bool>())) return false;
  // Nothing else reads the layer: not the ONNX nodes still to come, nor a layer made already.
  if (c.readers(n.inputs[layerInput]).size() != 1) return false;
  for (const MadeNode& other : c.nodes())
    if (std::count(other.inputs.begin(), other.inputs.end(), x.node)) return false;
  const OnnxTensor& k = c.constant(n, 1 - layerInput, scale ? "factor" : "addend");
  const std::optional<std::vector<float>> values = perChannel(k, x.shape);
  if (!values) return false;
  const bool neutral = k.count() == 1 && (*values)[0] == (scale ? 1.0f : 0.0f);
  if (!neutral) {
    m.spec.params[scale ? "no_scale" : "no_bias"] = false;
    m.blobs.emplace_back(scale ? "gamma" : "beta", tensorOf(Shape{x.shape[0]}, *values));
  }
  c.alias(n, layerInput);
  extendNote(c, m, n);
  return true;
}

void addNormalizationConverters(ConverterTable& t) {
  t["LayerNormalization"] = layerNormalization;
  t["InstanceNormalization"] = instanceNormalization;
  t["GroupNormalization"] = groupNormalization;
}

}  // namespace netsmith::onnx_import
