// Converters of the ONNX operators that move, pool or pass values on (Note [ONNX import]):
// Reshape, Flatten, Squeeze, Unsqueeze, Concat, the pooling operators, Pad, Dropout, Identity, Cast.
#include <algorithm>
#include <set>

#include "engine/core/error.h"
#include "engine/import/onnx/onnx_constants.h"
#include "engine/import/onnx/onnx_import_context.h"
#include "engine/import/onnx/onnx_window.h"

namespace netsmith::onnx_import {
namespace {

std::vector<int64_t> intsOfConstant(const ImportContext& c, const OnnxNodeDef& n, size_t i, const char* what) {
  const OnnxTensor& t = c.constant(n, i, what);
  if (t.isFloat) c.fail(n, format("its {} is a float tensor; integers expected", what));
  return t.ints;
}

// x given the per-sample shape `target` (same count): nothing when it already has it, Flatten for
// a vector, Reshape otherwise.
void reshapeTo(ImportContext& c, const OnnxNodeDef& n, const Value& x, const Shape& target) {
  if (numel(target) != numel(x.shape))
    c.fail(n, format("reshapes ({}) with {} values per sample into ({})", shapeToString(x.shape), numel(x.shape),
                     shapeToString(target)));
  if (target == x.shape) return c.alias(n);
  if (target.size() == 1) return (void)c.addLayer(n, "Flatten", {&x});
  c.addLayer(n, "Reshape", {&x}, {{"shape", target}});
}

// The model's fixed batch size, or 0 when its input leaves it open.
int64_t fixedBatch(const ImportContext& c) {
  const auto& in = c.model().inputs;
  return !in.empty() && in[0].hasShape && !in[0].dims.empty() && in[0].dims[0] > 0 ? in[0].dims[0] : 0;
}

void reshape(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  std::vector<int64_t> t = c.opset() < 5 ? c.intsAttr(n, "shape", {}) : intsOfConstant(c, n, 1, "target shape");
  const bool allowZero = c.intAttr(n, "allowzero", 0) != 0;
  std::vector<int64_t> full{kBatchDim};
  full.insert(full.end(), x.shape.begin(), x.shape.end());
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i] == 0 && !allowZero) {
      if (i >= full.size()) c.fail(n, format("target ({}) copies axis {} of a rank-{} input", dimsText(t), i, full.size()));
      t[i] = full[i];
    }
  if (t.empty()) c.fail(n, "reshapes into a scalar");
  // Note [Folded constants]: the first entry must keep the batch axis.
  const int64_t count = numel(x.shape);
  int64_t rest = 1;
  bool restOpen = false;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i] == -1) restOpen = true;
    else if (t[i] < 1) c.fail(n, format("target ({}) has a size of {}", dimsText(t), t[i]));
    else rest *= t[i];
  }
  const int64_t batch = fixedBatch(c);
  const bool keepsBatch = t[0] == kBatchDim || (t[0] == -1 && !restOpen && rest == count) || (batch > 0 && t[0] == batch);
  if (!keepsBatch)
    c.unsupported(n, format("into ({}) across the batch axis: a Netsmith layer reshapes each sample alone, so the "
                            "first size must be the batch's",
                            dimsText(t)));
  Shape target(t.begin() + 1, t.end());
  for (int64_t& d : target)
    if (d == -1) d = rest > 0 && count % rest == 0 ? count / rest : -1;
  if (std::count(target.begin(), target.end(), -1))
    c.fail(n, format("reshapes ({}) into ({})", shapeToString(x.shape), dimsText(t)));
  reshapeTo(c, n, x, target);
}

void flatten(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
  int64_t axis = c.intAttr(n, "axis", 1);
  if (axis < 0) axis += rank;
  if (axis <= 0 || axis > rank) c.unsupported(n, format("at axis {}: it would merge samples", axis));
  Shape target;
  int64_t outer = 1;
  for (int64_t a = 1; a < axis; ++a) outer *= x.shape[static_cast<size_t>(a - 1)];
  if (axis > 1) target.push_back(outer);
  target.push_back(numel(x.shape) / outer);
  reshapeTo(c, n, x, target);
}

void squeezeOrUnsqueeze(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  std::vector<int64_t> axes = c.intsAttr(n, "axes", {});
  if (axes.empty() && c.present(n, 1)) axes = intsOfConstant(c, n, 1, "axes");
  std::vector<int64_t> full{1};  // the batch axis, whose size does not matter here
  full.insert(full.end(), x.shape.begin(), x.shape.end());
  std::set<int64_t> at;
  if (n.opType == "Unsqueeze") {
    const int64_t rank = static_cast<int64_t>(full.size() + axes.size());
    for (int64_t a : axes) at.insert(a < 0 ? a + rank : a);
    if (at.count(0)) c.unsupported(n, "at axis 0: the batch axis stays first");
    for (int64_t a : at) {
      if (a < 0 || a > static_cast<int64_t>(full.size())) c.fail(n, format("axis {} is out of range", a));
      full.insert(full.begin() + a, 1);
    }
  } else {
    const int64_t rank = static_cast<int64_t>(full.size());
    if (axes.empty())
      for (int64_t a = 1; a < rank; ++a)
        if (full[static_cast<size_t>(a)] == 1) at.insert(a);
    for (int64_t a : axes) at.insert(a < 0 ? a + rank : a);
    if (at.count(0)) c.unsupported(n, "at axis 0: it would remove the batch axis");
    std::vector<int64_t> kept;
    for (int64_t a = 0; a < rank; ++a) {
      if (!at.count(a)) kept.push_back(full[static_cast<size_t>(a)]);
      else if (full[static_cast<size_t>(a)] != 1) c.fail(n, format("squeezes axis {} of size {}", a, full[static_cast<size_t>(a)]));
    }
    full = kept;
  }
  reshapeTo(c, n, x, Shape(full.begin() + 1, full.end()));
}

void concat(ImportContext& c, const OnnxNodeDef& n) {
  std::vector<const Value*> ins;
  for (size_t i = 0; i < n.inputs.size(); ++i) ins.push_back(&c.layer(n, i));
  if (ins.empty()) c.fail(n, "has no inputs");
  const int64_t rank = static_cast<int64_t>(ins[0]->shape.size()) + 1;
  int64_t axis = c.intAttr(n, "axis", 1);
  if (axis < 0) axis += rank;
  if (axis <= 0 || axis >= rank) c.unsupported(n, format("along axis {}: Netsmith concatenates within each sample", axis));
  if (ins.size() == 1) return c.alias(n);
  c.addLayer(n, "Concatenate", ins, {{"axis", axis - 1}});
}

// --- pooling ------------------------------------------------------------------------------------

void pooling(ImportContext& c, const OnnxNodeDef& n, bool isMax) {
  Value x = c.value(n, 0);
  if (x.kind == Value::Kind::Constant) c.layer(n, 0);
  if (isMax && x.kind == Value::Kind::Padded)
    c.unsupported(n, "after a Pad: Netsmith's max pooling never picks padding, a padded tensor's zeros can win");
  c.onlyFirstOutputUsed(n);
  const std::vector<int64_t> kernel = c.intsAttr(n, "kernel_shape", {});
  if (kernel.empty()) c.fail(n, "has no kernel_shape");
  const std::vector<int64_t> ownPads = c.intsAttr(n, "pads", {0, 0, 0, 0});
  const Window2d w = windowOf(c, n, x, kernel);
  if (w.dilation != std::vector<int64_t>{1, 1}) c.unsupported(n, "with dilations: Netsmith's pooling windows are dense");
  const bool ceil = c.intAttr(n, "ceil_mode", 0) != 0;
  const bool padded = x.kind == Value::Kind::Padded;
  const bool countPad = !isMax && c.intAttr(n, "count_include_pad", 0) != 0;
  if (padded && (countPad || ownPads[0] != 0 || ownPads[1] != 0))
    c.unsupported(n, "after a Pad with its own leading pads or count_include_pad: the divisor has no Netsmith form");
  // Note [Pooling windows] (engine/ops/pooling_rules.h): Netsmith's window o starts at o·stride − pad,
  // as ONNX's does with pad = the leading pad; ignore_border picks how many windows there are.
  std::vector<int64_t> onnxOut(2);
  bool fitsTrue = true, fitsFalse = true;
  for (int a = 0; a < 2; ++a) {
    const int64_t in = x.shape[1 + a], k = w.kernel[a], s = w.stride[a], pb = w.padBegin[a], pe = w.padEnd[a];
    const int64_t span = in + pb + pe - k;
    if (span < 0) c.fail(n, format("its {}-wide window does not fit the input's {} of {}", k, a ? "width" : "height", in));
    int64_t out = ceil ? (span + s - 1) / s + 1 : span / s + 1;
    if (ceil && (out - 1) * s >= in + pb) --out;  // the last window starts inside the input (PyTorch, onnxruntime)
    onnxOut[a] = out;
    fitsTrue = fitsTrue && in + 2 * pb >= k && (in + 2 * pb - k) / s + 1 == out;
    fitsFalse = fitsFalse && (in + 2 * pb + s - 1) / s == out && (out - 1) * s - pb < in;
    // With a Pad merged in, ONNX divides by the window inside the padded tensor, [−pad, in + pad):
    // Netsmith's including_pad divisor exactly.
    if (countPad) {
      // The divisor: Netsmith's counts the window inside [−pad, in + pad); ONNX's inside [−pb, in + pe).
      for (int64_t o = 0; o < out; ++o) {
        const int64_t start = o * s - pb;
        if (std::min(start + k, in + pb) != std::min(start + k, in + pe))
          c.unsupported(n, format("with count_include_pad and {} padding after but {} before along {}: the last windows' "
                                  "divisors have no Netsmith form",
                                  pe, pb, a ? "width" : "height"));
      }
    }
  }
  if (!fitsTrue && !fitsFalse)
    c.unsupported(n, format("with ceil_mode {}, pads ({}, {}, {}, {}) on a {}x{} input: its {}x{} windows match neither of "
                            "Netsmith's border rules (ignore_border true: whole windows; false: ceil(size / stride) "
                            "windows)",
                            ceil ? 1 : 0, w.padBegin[0], w.padBegin[1], w.padEnd[0], w.padEnd[1], x.shape[1], x.shape[2],
                            onnxOut[0], onnxOut[1]));
  Json params = {{"kernel", w.kernel}, {"stride", w.stride}, {"pad", w.padBegin}, {"ignore_border", fitsTrue}};
  if (!isMax) params["including_pad"] = countPad || padded;
  x.kind = Value::Kind::Layer;
  c.addLayer(n, isMax ? "MaxPooling" : "AveragePooling", {&x}, params);
}

void globalPooling(ImportContext& c, const OnnxNodeDef& n, bool isMax) {
  const Value& x = c.layer(n, 0);
  if (x.shape.size() != 3) c.fail(n, format("pools a ({}) input; (channels, height, width) expected", shapeToString(x.shape)));
  if (!isMax) return (void)c.addLayer(n, "GlobalAveragePooling", {&x});
  const std::vector<int64_t> hw{x.shape[1], x.shape[2]};
  c.addLayer(n, "MaxPooling", {&x}, {{"kernel", hw}, {"stride", hw}, {"pad", {0, 0}}, {"ignore_border", true}});
}

// ReduceMean over height and width is global average pooling (as tf2onnx writes it).
void reduceMean(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  std::vector<int64_t> axes = c.intsAttr(n, "axes", {});
  if (axes.empty() && c.present(n, 1)) axes = intsOfConstant(c, n, 1, "axes");
  const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
  std::set<int64_t> at;
  for (int64_t a : axes) at.insert(a < 0 ? a + rank : a);
  if (rank != 4 || at != std::set<int64_t>{2, 3})
    c.unsupported(n, format("over axes ({}) of a rank-{} tensor: Netsmith averages over height and width only "
                            "(GlobalAveragePooling)",
                            dimsText(axes), rank));
  c.addLayer(n, "GlobalAveragePooling", {&x});
  if (c.intAttr(n, "keepdims", 1) == 0) {
    OnnxNodeDef squeeze = n;
    squeeze.name = n.name + "_flatten";
    squeeze.inputs = {n.outputs[0]};
    const Value gap = c.value(squeeze, 0);
    c.addLayer(squeeze, "Flatten", {&gap});
  }
}

// A Pad of zeros on both sides of height and width, kept until the Conv or AveragePool after it
// takes it as its own padding.
void pad(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  const std::string mode = c.stringAttr(n, "mode", "constant");
  if (mode != "constant") c.unsupported(n, format("in mode '{}': Netsmith's layers pad with zeros", mode));
  std::vector<int64_t> pads = c.opset() < 11 ? c.intsAttr(n, "pads", {}) : intsOfConstant(c, n, 1, "pads");
  double value = c.opset() < 11 ? c.floatAttr(n, "value", 0.0f) : (c.present(n, 2) ? c.constant(n, 2, "constant_value").real(0) : 0.0);
  if (c.present(n, 3)) c.unsupported(n, "with axes: give pads for every axis");
  if (value != 0) c.unsupported(n, format("with the value {}: Netsmith's layers pad with zeros", value));
  if (x.shape.size() != 3 || pads.size() != 8 || pads[0] || pads[1] || pads[4] || pads[5] || pads[2] != pads[6] ||
      pads[3] != pads[7] || pads[2] < 0 || pads[3] < 0)
    c.unsupported(n, format("with pads ({}) on a ({}) input: only the same zeros on both sides of height and width can be "
                            "merged into the next Conv or AveragePool",
                            dimsText(pads), shapeToString(x.shape)));
  if (pads[2] == 0 && pads[3] == 0) return c.alias(n);
  Value v = x;
  v.kind = Value::Kind::Padded;
  v.padHeight = pads[2];
  v.padWidth = pads[3];
  c.setValue(n.outputs[0], v);
  c.note(format("Pad '{}' became the padding of the layer that reads it", n.name));
}

void dropout(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  c.onlyFirstOutputUsed(n);
  double ratio = 0.5;
  if (c.opset() < 12) ratio = c.floatAttr(n, "ratio", 0.5f);
  else if (c.present(n, 1)) ratio = c.constant(n, 1, "ratio").real(0);
  if (ratio <= 0) return c.alias(n);
  if (ratio >= 1) c.fail(n, format("drops with ratio {}", ratio));
  c.addLayer(n, "Dropout", {&x}, {{"p", static_cast<double>(static_cast<float>(ratio))}});
}

}  // namespace

void addShapeConverters(ConverterTable& t) {
  t["Reshape"] = reshape;
  t["Flatten"] = flatten;
  t["Squeeze"] = squeezeOrUnsqueeze;
  t["Unsqueeze"] = squeezeOrUnsqueeze;
  t["Concat"] = concat;
  t["MaxPool"] = [](ImportContext& c, const OnnxNodeDef& n) { pooling(c, n, true); };
  t["AveragePool"] = [](ImportContext& c, const OnnxNodeDef& n) { pooling(c, n, false); };
  t["GlobalAveragePool"] = [](ImportContext& c, const OnnxNodeDef& n) { globalPooling(c, n, false); };
  t["GlobalMaxPool"] = [](ImportContext& c, const OnnxNodeDef& n) { globalPooling(c, n, true); };
  t["ReduceMean"] = reduceMean;
  t["Pad"] = pad;
  t["Dropout"] = dropout;
  t["Identity"] = [](ImportContext& c, const OnnxNodeDef& n) {
    c.value(n, 0);
    c.alias(n);
  };
  t["Cast"] = [](ImportContext& c, const OnnxNodeDef& n) {
    c.layer(n, 0);
    if (c.intAttr(n, "to", 1) != 1) c.unsupported(n, "to a type other than float: Netsmith's layers compute in float");
    c.alias(n);
  };
}

}  // namespace netsmith::onnx_import
