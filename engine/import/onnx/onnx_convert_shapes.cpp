// Converters of the ONNX operators that move, pool or pass values on (Note [ONNX import]):
// Reshape, Flatten, Squeeze, Unsqueeze, Concat, Transpose (and the channel shuffle), Slice, Split,
// the pooling operators, ReduceMean, Pad, Dropout, Identity, Cast. Resize and Upsample:
// onnx_convert_resize.cpp.
#include <algorithm>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/import/onnx/onnx_constants.h"
#include "engine/import/onnx/onnx_import_context.h"
#include "engine/import/onnx/onnx_window.h"

namespace netsmith::onnx_import {

void addResizeConverters(ConverterTable& table);  // onnx_convert_resize.cpp

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
  // A value seen through a view (Note [Channel shuffle import]) whose layer already has the shape.
  if (target == c.made(x.node).shape) return c.setLayer(n.outputs[0], x.node);
  if (target.size() == 1) return (void)c.addLayer(n, "Flatten", {&x});
  c.addLayer(n, "Reshape", {&x}, {{"shape", target}});
}

// The model's fixed batch size, or 0 when its input leaves it open.
int64_t fixedBatch(const ImportContext& c) {
  const auto& in = c.model().inputs;
  return !in.empty() && in[0].hasShape && !in[0].dims.empty() && in[0].dims[0] > 0 ? in[0].dims[0] : 0;
}

// Note [Channel shuffle import]
// ShuffleNet's channel shuffle is three ONNX nodes: Reshape (C, H, W) → (g, C/g, H, W), Transpose
// perm (0, 2, 1, 3, 4), Reshape back. Netsmith has one layer for it, ChannelShuffle (group g), which
// leaves the values in the order the Transpose gives. The first Reshape, when its only reader is
// such a Transpose and that Transpose is read only by Reshapes (and Shapes), becomes that layer;
// the Transpose's output stands for it seen as (C/g, g, H, W), a view with the same memory order,
// so the Reshapes after it read the right values whatever their target (the one back to (C, H, W)
// adds nothing). The target of the Reshape back is computed by shape arithmetic between the nodes,
// which is why the pattern is taken from the first Reshape and not the last.
bool channelShuffle(ImportContext& c, const OnnxNodeDef& n, const Value& x, const Shape& target) {
  if (x.shape.empty() || target.size() != x.shape.size() + 1) return false;
  const int64_t g = target[0];
  if (g < 2 || target[0] * target[1] != x.shape[0] || !std::equal(target.begin() + 2, target.end(), x.shape.begin() + 1))
    return false;
  const auto& readers = c.readers(n.outputs[0]);
  if (readers.size() != 1 || readers[0] < 0) return false;
  const OnnxNodeDef& t = c.model().nodes[static_cast<size_t>(readers[0])];
  if (t.opType != "Transpose" || t.outputs.empty() || t.inputs.size() != 1) return false;
  std::vector<int64_t> swap{0, 2, 1};
  for (int64_t a = 3; a <= static_cast<int64_t>(target.size()); ++a) swap.push_back(a);
  const OnnxAttr* perm = t.attr("perm");
  if (!perm || perm->kind != OnnxAttr::Kind::Ints || perm->ints != swap) return false;
  const auto& after = c.readers(t.outputs[0]);
  if (after.empty()) return false;
  for (int r : after) {
    if (r < 0) return false;
    const std::string& op = c.model().nodes[static_cast<size_t>(r)].opType;
    if (op != "Reshape" && op != "Shape") return false;
  }
  const std::string id = c.addLayer(t, "ChannelShuffle", {&x}, {{"axis", 0}, {"group", g}});
  Value view;
  view.kind = Value::Kind::Layer;
  view.node = id;
  view.shape = Shape{target[1], target[0]};
  view.shape.insert(view.shape.end(), target.begin() + 2, target.end());
  c.setValue(t.outputs[0], view);
  c.absorb(readers[0]);
  c.note(format("Reshape '{}' and Transpose '{}' became one ChannelShuffle layer '{}' (group {})", n.name, t.name, id, g));
  return true;
}

void convertReshape(ImportContext& c, const OnnxNodeDef& n) {
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
  if (groupNormReshapeBack(c, n, x, target) || deferGroupReshape(c, n, x, target)) return;
  if (channelShuffle(c, n, x, target)) return;
  reshapeTo(c, n, x, target);
}

void convertFlatten(ImportContext& c, const OnnxNodeDef& n) {
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

void convertSqueezeOrUnsqueeze(ImportContext& c, const OnnxNodeDef& n) {
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

void convertConcat(ImportContext& c, const OnnxNodeDef& n) {
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

// A Transpose of per-sample axes (the batch axis stays first).
void convertTranspose(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
  std::vector<int64_t> perm = c.intsAttr(n, "perm", {});
  if (perm.empty())
    for (int64_t a = rank - 1; a >= 0; --a) perm.push_back(a);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t a = 0; a < rank; ++a)
    if (static_cast<int64_t>(sorted.size()) != rank || sorted[static_cast<size_t>(a)] != a)
      c.fail(n, format("perm ({}) is not a permutation of the {} axes of its input", dimsText(perm), rank));
  if (perm[0] != 0)
    c.unsupported(n, format("with perm ({}): it moves the batch axis (axis 0 goes to position {}); Netsmith's "
                            "Transpose permutes the axes of each sample, the batch axis stays first",
                            dimsText(perm), std::find(perm.begin(), perm.end(), 0) - perm.begin()));
  std::vector<int64_t> axes;
  for (size_t i = 1; i < perm.size(); ++i) axes.push_back(perm[i] - 1);
  bool identity = true;
  for (size_t i = 0; i < axes.size(); ++i) identity = identity && axes[i] == static_cast<int64_t>(i);
  if (identity) return c.alias(n);
  c.addLayer(n, "Transpose", {&x}, {{"axes", axes}});
}

// Where a slice of one axis lands: ONNX's start and end (clamped as ONNX does) for step > 0.
struct AxisRange {
  int64_t start = 0, stop = 0, step = 1;
};

// One Slice layer taking `ranges` (per-sample axis → range) of x, or x itself when they take all.
void sliceLayer(ImportContext& c, const OnnxNodeDef& n, const Value& x, const std::map<int64_t, AxisRange>& ranges) {
  int64_t last = -1;
  bool whole = true;
  for (const auto& [axis, r] : ranges) {
    last = std::max(last, axis);
    whole = whole && r.start == 0 && r.stop == x.shape[static_cast<size_t>(axis)] && r.step == 1;
  }
  if (whole) return c.alias(n);
  std::vector<int64_t> start, stop, step;
  for (int64_t a = 0; a <= last; ++a) {
    const auto it = ranges.find(a);
    const AxisRange r = it != ranges.end() ? it->second : AxisRange{0, x.shape[static_cast<size_t>(a)], 1};
    start.push_back(r.start);
    stop.push_back(r.stop);
    step.push_back(r.step);
  }
  c.addLayer(n, "Slice", {&x}, {{"start", start}, {"stop", stop}, {"step", step}});
}

// Slice of a layer's output: starts, ends, axes and steps are attributes before opset 10 and
// constant inputs since. The batch axis may only be taken whole.
void convertSlice(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.intsAttr(n, "starts", {});
    ends = c.intsAttr(n, "ends", {});
    axes = c.intsAttr(n, "axes", {});
  } else {
    starts = intsOfConstant(c, n, 1, "starts");
    ends = intsOfConstant(c, n, 2, "ends");
    if (c.present(n, 3)) axes = intsOfConstant(c, n, 3, "axes");
    if (c.present(n, 4)) steps = intsOfConstant(c, n, 4, "steps");
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.empty() || ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.fail(n, format("starts ({}), ends ({}), axes ({}) and steps ({}) differ in length", dimsText(starts),
                     dimsText(ends), dimsText(axes), dimsText(steps)));
  constexpr int64_t kOpenEnd = int64_t{1} << 31;  // exporters write INT64_MAX (or INT32_MAX) for "to the end"
  std::map<int64_t, AxisRange> ranges;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank) c.fail(n, format("axis {} is out of range for a rank-{} input", axes[i], rank));
    if (a == 0) {
      const bool all = starts[i] == 0 && steps[i] == 1 && (ends[i] == kBatchDim || ends[i] >= kOpenEnd - 1);
      if (!all) c.unsupported(n, format("of the batch axis ({}:{}:{}): Netsmith slices within each sample", starts[i],
                                        dimsText({ends[i]}), steps[i]));
      continue;
    }
    if (ranges.count(a - 1)) c.fail(n, format("axis {} is sliced twice", a));
    const int64_t size = x.shape[static_cast<size_t>(a - 1)];
    if (steps[i] <= 0)
      c.unsupported(n, format("with step {} on axis {}: Netsmith's Slice steps forward", steps[i], a));
    auto clampIndex = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + size : v, 0, size); };
    const AxisRange r{clampIndex(starts[i]), clampIndex(ends[i]), steps[i]};
    if (r.stop <= r.start)
      c.fail(n, format("takes nothing of axis {} (size {}): {}:{}:{}", a, size, starts[i], dimsText({ends[i]}), steps[i]));
    ranges[a - 1] = r;
  }
  sliceLayer(c, n, x, ranges);
}

// Split into consecutive parts along one per-sample axis: one Slice layer per output read. The
// sizes are the attribute `split` before opset 13, the input since; without them equal parts (and
// from opset 18, num_outputs parts of ceil(size / num_outputs), the last one smaller).
void convertSplit(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
  int64_t axis = c.intAttr(n, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) c.fail(n, format("axis {} is out of range for a rank-{} input", axis, rank));
  if (axis == 0) c.unsupported(n, "along the batch axis: Netsmith splits within each sample");
  const int64_t size = x.shape[static_cast<size_t>(axis - 1)];
  const int64_t outputs = static_cast<int64_t>(n.outputs.size());
  std::vector<int64_t> parts =
      c.opset() < 13 ? c.intsAttr(n, "split", {}) : (c.present(n, 1) ? intsOfConstant(c, n, 1, "split") : std::vector<int64_t>{});
  if (parts.empty()) {
    const int64_t count = c.opset() >= 18 ? c.intAttr(n, "num_outputs", outputs) : outputs;
    if (count < 1) c.fail(n, format("splits into {} parts", count));
    const int64_t each = c.opset() >= 18 ? (size + count - 1) / count : size / count;
    if (c.opset() < 18 && size % count != 0)
      c.fail(n, format("splits an axis of {} into {} equal parts", size, count));
    for (int64_t i = 0; i < count; ++i) parts.push_back(std::min(each, size - each * i));
  }
  int64_t total = 0;
  for (int64_t p : parts) total += p;
  if (static_cast<int64_t>(parts.size()) != outputs || total != size ||
      std::any_of(parts.begin(), parts.end(), [](int64_t p) { return p < 0; }))
    c.fail(n, format("splits axis {} of size {} into ({}) for {} outputs", axis, size, dimsText(parts), outputs));
  int64_t offset = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const int64_t begin = offset;
    offset += parts[i];
    if (n.outputs[i].empty() || c.readers(n.outputs[i]).empty()) continue;
    if (parts[i] == 0) c.fail(n, format("its output {} ('{}') is empty and is read", i, n.outputs[i]));
    OnnxNodeDef part = n;
    part.name = format("{}_{}", n.name, i);
    part.outputs = {n.outputs[i]};
    sliceLayer(c, part, x, {{axis - 1, AxisRange{begin, offset, 1}}});
  }
}

// --- pooling ------------------------------------------------------------------------------------

void convertPooling(ImportContext& c, const OnnxNodeDef& n, bool isMax) {
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
  // Note [Pooling windows] (engine/op_interface/pooling_rules.h): Netsmith's window o starts at o·stride − pad,
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

void convertGlobalPooling(ImportContext& c, const OnnxNodeDef& n, bool isMax) {
  const Value& x = c.layer(n, 0);
  if (x.shape.size() != 3) c.fail(n, format("pools a ({}) input; (channels, height, width) expected", shapeToString(x.shape)));
  if (!isMax) return (void)c.addLayer(n, "GlobalAveragePooling", {&x});
  const std::vector<int64_t> hw{x.shape[1], x.shape[2]};
  c.addLayer(n, "MaxPooling", {&x}, {{"kernel", hw}, {"stride", hw}, {"pad", {0, 0}}, {"ignore_border", true}});
}

// ReduceMean over height and width is global average pooling (as tf2onnx writes it); over other
// per-sample axes it is a Mean layer. Its axes are an attribute before opset 18 and an input since
// (then with noop_with_empty_axes).
void convertReduceMean(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  std::vector<int64_t> axes = c.intsAttr(n, "axes", {});
  if (axes.empty() && c.present(n, 1)) axes = intsOfConstant(c, n, 1, "axes");
  const bool keep = c.intAttr(n, "keepdims", 1) != 0;
  const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
  if (axes.empty() && c.intAttr(n, "noop_with_empty_axes", 0) != 0) return c.alias(n);
  std::set<int64_t> at;
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a) at.insert(a);
  for (int64_t a : axes) {
    const int64_t k = a < 0 ? a + rank : a;
    if (k < 0 || k >= rank) c.fail(n, format("axis {} is out of range for a rank-{} input", a, rank));
    at.insert(k);
  }
  if (at.count(0))
    c.unsupported(n, format("over axes ({}) of a rank-{} tensor, the batch axis among them: Netsmith averages within "
                            "each sample",
                            axes.empty() ? std::string("all") : dimsText(axes), rank));
  if (rank == 4 && at == std::set<int64_t>{2, 3}) {
    c.addLayer(n, "GlobalAveragePooling", {&x});
    if (!keep) {
      OnnxNodeDef squeeze = n;
      squeeze.name = n.name + "_flatten";
      squeeze.inputs = {n.outputs[0]};
      const Value gap = c.value(squeeze, 0);
      c.addLayer(squeeze, "Flatten", {&gap});
    }
    return;
  }
  std::vector<int64_t> perSample;
  for (int64_t a : at) perSample.push_back(a - 1);
  c.addLayer(n, "Mean", {&x}, {{"axes", perSample}, {"keep_dims", keep}});
}

// A Pad of zeros on both sides of height and width, kept until the Conv or AveragePool after it
// takes it as its own padding.
void convertPad(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  const std::string mode = c.stringAttr(n, "mode", "constant");
  std::vector<int64_t> pads = c.opset() < 11 ? c.intsAttr(n, "pads", {}) : intsOfConstant(c, n, 1, "pads");
  double value = c.opset() < 11 ? c.floatAttr(n, "value", 0.0f) : (c.present(n, 2) ? c.constant(n, 2, "constant_value").real(0) : 0.0);
  if (c.present(n, 3)) c.unsupported(n, "with axes: give pads for every axis");
  const bool mergeable = mode == "constant" && value == 0 && x.shape.size() == 3 && pads.size() == 8 && !pads[0] &&
                         !pads[1] && !pads[4] && !pads[5] && pads[2] == pads[6] && pads[3] == pads[7] && pads[2] >= 0 &&
                         pads[3] >= 0;
  if (!mergeable) {
    // Anything else of the per-sample axes is a Pad layer (nnabla's pad_width: before, after per
    // axis), as tf2onnx writes TensorFlow's asymmetric SAME padding before a strided Conv.
    const size_t rank = x.shape.size();
    if (pads.size() != 2 * (rank + 1))
      c.fail(n, format("has {} pads for a rank-{} input (the batch axis included)", pads.size(), rank + 1));
    if (pads[0] || pads[rank + 1]) c.unsupported(n, format("with pads ({}): it pads the batch axis", dimsText(pads)));
    if (mode != "constant" && mode != "reflect")
      c.unsupported(n, format("in mode '{}': Netsmith's Pad has the modes constant and reflect", mode));
    Json padWidth = Json::array();
    for (size_t a = 1; a <= rank; ++a) {
      if (pads[a] < 0 || pads[a + rank + 1] < 0) c.unsupported(n, format("with negative pads ({}): that crops", dimsText(pads)));
      padWidth.push_back(pads[a]);
      padWidth.push_back(pads[a + rank + 1]);
    }
    c.addLayer(n, "Pad", {&x}, {{"pad_width", padWidth}, {"mode", mode}, {"constant_value", value}});
    return;
  }
  if (pads[2] == 0 && pads[3] == 0) return c.alias(n);
  Value v = x;
  v.kind = Value::Kind::Padded;
  v.padHeight = pads[2];
  v.padWidth = pads[3];
  c.setValue(n.outputs[0], v);
  c.note(format("Pad '{}' became the padding of the layer that reads it", n.name));
}

void convertDropout(ImportContext& c, const OnnxNodeDef& n) {
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
  addResizeConverters(t);
  t["Reshape"] = convertReshape;
  t["Flatten"] = convertFlatten;
  t["Squeeze"] = convertSqueezeOrUnsqueeze;
  t["Unsqueeze"] = convertSqueezeOrUnsqueeze;
  t["Concat"] = convertConcat;
  t["Transpose"] = convertTranspose;
  t["Slice"] = convertSlice;
  t["Split"] = convertSplit;
  t["MaxPool"] = [](ImportContext& c, const OnnxNodeDef& n) { convertPooling(c, n, true); };
  t["AveragePool"] = [](ImportContext& c, const OnnxNodeDef& n) { convertPooling(c, n, false); };
  t["GlobalAveragePool"] = [](ImportContext& c, const OnnxNodeDef& n) { convertGlobalPooling(c, n, false); };
  t["GlobalMaxPool"] = [](ImportContext& c, const OnnxNodeDef& n) { convertGlobalPooling(c, n, true); };
  t["ReduceMean"] = convertReduceMean;
  t["Pad"] = convertPad;
  t["Dropout"] = convertDropout;
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
