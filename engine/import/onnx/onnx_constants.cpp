#include "engine/import/onnx/onnx_constants.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "engine/core/error.h"

namespace netsmith::onnx_import {

namespace {

// Constants are shape arithmetic and small tables; a folded tensor larger than this (a
// ConstantOfShape or Expand gone wrong in a damaged file) is refused rather than allocated.
constexpr int64_t kMaxFoldedElements = int64_t{1} << 28;

[[noreturn]] void fail(const OnnxNodeDef& n, const std::string& what) {
  throw Error(format("node '{}' (op {}): {}", n.name, n.opType, what));
}

int64_t countOf(const OnnxNodeDef& n, const std::vector<int64_t>& dims) {
  int64_t c = 1;
  for (int64_t d : dims) {
    if (d < 0) fail(n, format("a constant of shape ({}) has a negative dimension", dimsText(dims)));
    c *= d;
    if (c > kMaxFoldedElements) fail(n, format("a constant of shape ({}) is too large to fold", dimsText(dims)));
  }
  return c;
}

OnnxTensor makeLike(bool isFloat, std::vector<int64_t> dims, const OnnxNodeDef& n) {
  OnnxTensor t;
  t.isFloat = isFloat;
  t.dims = std::move(dims);
  const int64_t c = countOf(n, t.dims);
  if (isFloat) t.floats.resize(static_cast<size_t>(c));
  else t.ints.resize(static_cast<size_t>(c));
  return t;
}

void copyElement(const OnnxTensor& from, int64_t i, OnnxTensor& to, int64_t j) {
  if (to.isFloat) to.floats[static_cast<size_t>(j)] = from.isFloat ? from.floats[static_cast<size_t>(i)] : static_cast<float>(from.ints[static_cast<size_t>(i)]);
  else to.ints[static_cast<size_t>(j)] = from.integer(i);
}

std::vector<int64_t> stridesOf(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t a = static_cast<int64_t>(dims.size()) - 2; a >= 0; --a) s[static_cast<size_t>(a)] = s[static_cast<size_t>(a) + 1] * dims[static_cast<size_t>(a) + 1];
  return s;
}

int64_t normalizedAxis(const OnnxNodeDef& n, int64_t axis, int64_t rank) {
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) fail(n, format("axis {} is out of range for a rank-{} tensor", axis, rank));
  return axis;
}

const OnnxTensor& need(const OnnxNodeDef& n, const std::vector<const OnnxTensor*>& in, size_t i) {
  if (i >= in.size() || !in[i]) fail(n, format("input {} is missing", i));
  return *in[i];
}

std::vector<int64_t> intsOf(const OnnxNodeDef& n, const OnnxTensor& t) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.count(); ++i) {
    if (t.isFloat) fail(n, "expected an integer tensor");
    v.push_back(t.ints[static_cast<size_t>(i)]);
  }
  return v;
}

int64_t intAttr(const OnnxNodeDef& n, const char* key, int64_t fallback) {
  const OnnxAttr* a = n.attr(key);
  return a && a->kind == OnnxAttr::Kind::Int ? a->i : fallback;
}

// Axes from the attribute (older opsets) or from input `index` (newer ones).
std::optional<std::vector<int64_t>> axesOf(const OnnxNodeDef& n, const std::vector<const OnnxTensor*>& in, size_t index) {
  if (const OnnxAttr* a = n.attr("axes"); a && a->kind == OnnxAttr::Kind::Ints) return a->ints;
  if (index < in.size() && in[index]) return intsOf(n, *in[index]);
  return std::nullopt;
}

bool isBatch(int64_t v) { return v == kBatchDim; }

// numpy broadcasting of two shapes.
std::vector<int64_t> broadcastDims(const OnnxNodeDef& n, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k + a.size() >= rank ? a[k + a.size() - rank] : 1;
    const int64_t db = k + b.size() >= rank ? b[k + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1)
      fail(n, format("shapes ({}) and ({}) do not broadcast", dimsText(a), dimsText(b)));
    out[k] = da == 1 ? db : da;
  }
  return out;
}

// Flat index into `dims` (right-aligned to out's rank, broadcast axes fixed at 0) of out's
// multi-index.
int64_t broadcastIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  const size_t offset = index.size() - dims.size();
  int64_t flat = 0;
  for (size_t k = 0; k < dims.size(); ++k) flat = flat * dims[k] + (dims[k] == 1 ? 0 : index[k + offset]);
  return flat;
}

OnnxTensor binary(const OnnxNodeDef& n, const OnnxTensor& a, const OnnxTensor& b) {
  const bool isFloat = a.isFloat || b.isFloat;
  OnnxTensor out = makeLike(isFloat, broadcastDims(n, a.dims, b.dims), n);
  std::vector<int64_t> index(out.dims.size(), 0);
  const int64_t total = out.count();
  for (int64_t j = 0; j < total; ++j) {
    const int64_t ia = broadcastIndex(index, a.dims), ib = broadcastIndex(index, b.dims);
    if (isFloat) {
      const double x = a.real(ia), y = b.real(ib);
      double r = 0;
      if (n.opType == "Add") r = x + y;
      else if (n.opType == "Sub") r = x - y;
      else if (n.opType == "Mul") r = x * y;
      else r = x / y;
      out.floats[static_cast<size_t>(j)] = static_cast<float>(r);
    } else {
      const int64_t x = a.ints[static_cast<size_t>(ia)], y = b.ints[static_cast<size_t>(ib)];
      int64_t r = 0;
      if (isBatch(x) || isBatch(y)) {
        // Note [Folded constants]: the batch size passes through ×1 and ÷1 only.
        const int64_t other = isBatch(x) ? y : x;
        const bool keeps = (n.opType == "Mul" && other == 1) || (n.opType == "Div" && isBatch(x) && y == 1);
        if (!keeps) fail(n, "computes with the batch size, which a Netsmith network leaves open");
        r = kBatchDim;
      } else if (n.opType == "Add") r = x + y;
      else if (n.opType == "Sub") r = x - y;
      else if (n.opType == "Mul") r = x * y;
      else {
        if (y == 0) fail(n, "divides by zero");
        r = x / y;
      }
      out.ints[static_cast<size_t>(j)] = r;
    }
    for (int64_t k = static_cast<int64_t>(index.size()) - 1; k >= 0; --k) {
      if (++index[static_cast<size_t>(k)] < out.dims[static_cast<size_t>(k)]) break;
      index[static_cast<size_t>(k)] = 0;
    }
  }
  return out;
}

OnnxTensor gather(const OnnxNodeDef& n, const OnnxTensor& data, const OnnxTensor& indices) {
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  if (rank == 0) fail(n, "gathers from a scalar");
  const int64_t axis = normalizedAxis(n, intAttr(n, "axis", 0), rank);
  std::vector<int64_t> dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  OnnxTensor out = makeLike(data.isFloat, dims, n);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= data.dims[static_cast<size_t>(a)];
  for (int64_t a = axis + 1; a < rank; ++a) inner *= data.dims[static_cast<size_t>(a)];
  const int64_t size = data.dims[static_cast<size_t>(axis)];
  const std::vector<int64_t> idx = intsOf(n, indices);
  int64_t j = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : idx) {
      if (k < 0) k += size;
      if (k < 0 || k >= size) fail(n, format("index {} is out of range for an axis of size {}", k, size));
      for (int64_t i = 0; i < inner; ++i) copyElement(data, (o * size + k) * inner + i, out, j++);
    }
  return out;
}

OnnxTensor concat(const OnnxNodeDef& n, const std::vector<const OnnxTensor*>& in) {
  if (in.empty()) fail(n, "has no inputs");
  const OnnxTensor& first = need(n, in, 0);
  const int64_t rank = static_cast<int64_t>(first.dims.size());
  if (rank == 0) fail(n, "concatenates scalars");
  const int64_t axis = normalizedAxis(n, intAttr(n, "axis", 0), rank);
  std::vector<int64_t> dims = first.dims;
  dims[static_cast<size_t>(axis)] = 0;
  bool isFloat = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const OnnxTensor& t = need(n, in, i);
    if (static_cast<int64_t>(t.dims.size()) != rank) fail(n, "concatenates tensors of different ranks");
    for (int64_t a = 0; a < rank; ++a)
      if (a != axis && t.dims[static_cast<size_t>(a)] != first.dims[static_cast<size_t>(a)])
        fail(n, format("shapes ({}) and ({}) differ off the axis", dimsText(first.dims), dimsText(t.dims)));
    dims[static_cast<size_t>(axis)] += t.dims[static_cast<size_t>(axis)];
    isFloat = isFloat || t.isFloat;
  }
  OnnxTensor out = makeLike(isFloat, dims, n);
  int64_t outer = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= dims[static_cast<size_t>(a)];
  int64_t j = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const OnnxTensor* t : in) {
      int64_t block = 1;
      for (int64_t a = axis; a < rank; ++a) block *= t->dims[static_cast<size_t>(a)];
      for (int64_t i = 0; i < block; ++i) copyElement(*t, o * block + i, out, j++);
    }
  return out;
}

OnnxTensor slice(const OnnxNodeDef& n, const std::vector<const OnnxTensor*>& in, int64_t opset) {
  const OnnxTensor& data = need(n, in, 0);
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    const OnnxAttr* s = n.attr("starts");
    const OnnxAttr* e = n.attr("ends");
    if (!s || !e) fail(n, "needs starts and ends");
    starts = s->ints;
    ends = e->ints;
    if (const OnnxAttr* a = n.attr("axes")) axes = a->ints;
  } else {
    starts = intsOf(n, need(n, in, 1));
    ends = intsOf(n, need(n, in, 2));
    if (in.size() > 3 && in[3]) axes = intsOf(n, *in[3]);
    if (in.size() > 4 && in[4]) steps = intsOf(n, *in[4]);
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail(n, "starts, ends, axes and steps differ in length");
  std::vector<int64_t> first(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1), dims = data.dims;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t a = normalizedAxis(n, axes[i], rank);
    const int64_t size = data.dims[static_cast<size_t>(a)], st = steps[i];
    if (st == 0) fail(n, "a step of 0");
    auto clampIndex = [&](int64_t v, bool isEnd) {
      if (v < 0) v += size;
      if (st > 0) return std::clamp<int64_t>(v, 0, size);
      return std::clamp<int64_t>(v, isEnd ? -1 : 0, size - 1);
    };
    const int64_t b = clampIndex(starts[i], false), e = clampIndex(ends[i], true);
    const int64_t count = st > 0 ? std::max<int64_t>(0, (e - b + st - 1) / st) : std::max<int64_t>(0, (b - e + (-st) - 1) / (-st));
    first[static_cast<size_t>(a)] = b;
    step[static_cast<size_t>(a)] = st;
    dims[static_cast<size_t>(a)] = count;
  }
  OnnxTensor out = makeLike(data.isFloat, dims, n);
  const std::vector<int64_t> strides = stridesOf(data.dims);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t j = 0; j < out.count(); ++j) {
    int64_t src = 0;
    for (int64_t a = 0; a < rank; ++a)
      src += (first[static_cast<size_t>(a)] + index[static_cast<size_t>(a)] * step[static_cast<size_t>(a)]) * strides[static_cast<size_t>(a)];
    copyElement(data, src, out, j);
    for (int64_t k = rank - 1; k >= 0; --k) {
      if (++index[static_cast<size_t>(k)] < dims[static_cast<size_t>(k)]) break;
      index[static_cast<size_t>(k)] = 0;
    }
  }
  return out;
}

OnnxTensor transpose(const OnnxNodeDef& n, const OnnxTensor& data) {
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  std::vector<int64_t> perm;
  if (const OnnxAttr* p = n.attr("perm")) perm = p->ints;
  if (perm.empty())
    for (int64_t a = rank - 1; a >= 0; --a) perm.push_back(a);
  if (static_cast<int64_t>(perm.size()) != rank) fail(n, "perm does not match the tensor's rank");
  std::set<int64_t> seen(perm.begin(), perm.end());
  if (static_cast<int64_t>(seen.size()) != rank || *seen.begin() != 0 || *seen.rbegin() != rank - 1)
    fail(n, "perm is not a permutation of the axes");
  std::vector<int64_t> dims;
  for (int64_t a : perm) dims.push_back(data.dims[static_cast<size_t>(a)]);
  OnnxTensor out = makeLike(data.isFloat, dims, n);
  const std::vector<int64_t> strides = stridesOf(data.dims);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t j = 0; j < out.count(); ++j) {
    int64_t src = 0;
    for (int64_t a = 0; a < rank; ++a) src += index[static_cast<size_t>(a)] * strides[static_cast<size_t>(perm[static_cast<size_t>(a)])];
    copyElement(data, src, out, j);
    for (int64_t k = rank - 1; k >= 0; --k) {
      if (++index[static_cast<size_t>(k)] < dims[static_cast<size_t>(k)]) break;
      index[static_cast<size_t>(k)] = 0;
    }
  }
  return out;
}

OnnxTensor reshaped(const OnnxNodeDef& n, const OnnxTensor& data, std::vector<int64_t> dims) {
  OnnxTensor out = data;
  out.dims = std::move(dims);
  if (out.count() != data.count())
    fail(n, format("cannot reshape ({}) into ({})", dimsText(data.dims), dimsText(out.dims)));
  return out;
}

}  // namespace

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + (dims[i] == kBatchDim ? std::string("N") : std::to_string(dims[i]));
  return s;
}

bool canFoldConstant(const std::string& op) {
  static const std::set<std::string> kOps{"Constant", "Identity", "Cast",      "Shape",     "Gather",  "Unsqueeze",
                                          "Squeeze",  "Concat",   "Slice",     "Reshape",   "Transpose", "Add",
                                          "Sub",      "Mul",      "Div",       "ConstantOfShape", "Flatten", "Dropout"};
  return kOps.count(op) > 0;
}

OnnxTensor shapeTensor(const OnnxNodeDef& n, const std::vector<int64_t>& dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t start = intAttr(n, "start", 0), end = intAttr(n, "end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  OnnxTensor t;
  t.isFloat = false;
  t.ints.assign(dims.begin() + start, dims.begin() + end);
  t.dims = {end - start};
  return t;
}

std::vector<OnnxTensor> foldConstant(const OnnxNodeDef& n, const std::vector<const OnnxTensor*>& in, int64_t opset) {
  const std::string& op = n.opType;
  if (op == "Constant") {
    if (const OnnxAttr* a = n.attr("value"); a && a->kind == OnnxAttr::Kind::Tensor && !a->tensor.empty()) return {a->tensor[0]};
    OnnxTensor t;
    if (const OnnxAttr* a = n.attr("value_float")) {
      t.floats = {a->f};
    } else if (const OnnxAttr* a = n.attr("value_floats")) {
      t.floats = a->floats;
      t.dims = {static_cast<int64_t>(a->floats.size())};
    } else if (const OnnxAttr* a = n.attr("value_int")) {
      t.isFloat = false;
      t.ints = {a->i};
    } else if (const OnnxAttr* a = n.attr("value_ints")) {
      t.isFloat = false;
      t.ints = a->ints;
      t.dims = {static_cast<int64_t>(a->ints.size())};
    } else {
      fail(n, "has no value the importer reads (value, value_float(s) or value_int(s))");
    }
    return {t};
  }
  if (op == "Identity" || op == "Dropout") return {need(n, in, 0)};
  if (op == "Cast") {
    const OnnxTensor& x = need(n, in, 0);
    const int64_t to = intAttr(n, "to", 1);
    const bool toFloat = to == 1 || to == 10 || to == 11;
    OnnxTensor out = makeLike(toFloat, x.dims, n);
    for (int64_t i = 0; i < x.count(); ++i) {
      if (!x.isFloat && isBatch(x.ints[static_cast<size_t>(i)])) {
        if (toFloat) fail(n, "turns the batch size into a number, which a Netsmith network leaves open");
        out.ints[static_cast<size_t>(i)] = kBatchDim;
        continue;
      }
      if (toFloat) out.floats[static_cast<size_t>(i)] = static_cast<float>(x.real(i));
      else out.ints[static_cast<size_t>(i)] = to == 9 ? (x.real(i) != 0) : static_cast<int64_t>(x.real(i));
    }
    return {out};
  }
  if (op == "Shape") return {shapeTensor(n, need(n, in, 0).dims)};
  if (op == "Gather") return {gather(n, need(n, in, 0), need(n, in, 1))};
  if (op == "Unsqueeze" || op == "Squeeze") {
    const OnnxTensor& x = need(n, in, 0);
    const auto axes = axesOf(n, in, 1);
    std::vector<int64_t> dims = x.dims;
    if (op == "Unsqueeze") {
      if (!axes) fail(n, "has no axes");
      const int64_t rank = static_cast<int64_t>(dims.size() + axes->size());
      std::vector<int64_t> sorted;
      for (int64_t a : *axes) sorted.push_back(normalizedAxis(n, a, rank));
      std::sort(sorted.begin(), sorted.end());
      for (int64_t a : sorted) dims.insert(dims.begin() + a, 1);
    } else {
      std::vector<int64_t> keep;
      const int64_t rank = static_cast<int64_t>(dims.size());
      std::set<int64_t> drop;
      if (axes) {
        for (int64_t a : *axes) drop.insert(normalizedAxis(n, a, rank));
      } else {
        for (int64_t a = 0; a < rank; ++a)
          if (dims[static_cast<size_t>(a)] == 1) drop.insert(a);
      }
      for (int64_t a = 0; a < rank; ++a) {
        if (!drop.count(a)) keep.push_back(dims[static_cast<size_t>(a)]);
        else if (dims[static_cast<size_t>(a)] != 1) fail(n, format("squeezes axis {} of size {}", a, dims[static_cast<size_t>(a)]));
      }
      dims = keep;
    }
    return {reshaped(n, x, dims)};
  }
  if (op == "Concat") return {concat(n, in)};
  if (op == "Slice") return {slice(n, in, opset)};
  if (op == "Transpose") return {transpose(n, need(n, in, 0))};
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return {binary(n, need(n, in, 0), need(n, in, 1))};
  if (op == "Reshape") {
    const OnnxTensor& x = need(n, in, 0);
    std::vector<int64_t> target = intsOf(n, need(n, in, 1));
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] == 0 && i < x.dims.size()) target[i] = x.dims[i];
      if (target[i] == -1) inferred = static_cast<int>(i);
      else known *= target[i];
    }
    if (inferred >= 0) target[static_cast<size_t>(inferred)] = known ? x.count() / known : 0;
    return {reshaped(n, x, target)};
  }
  if (op == "Flatten") {
    const OnnxTensor& x = need(n, in, 0);
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    int64_t axis = intAttr(n, "axis", 1);
    if (axis < 0) axis += rank;
    int64_t outer = 1;
    for (int64_t a = 0; a < std::min(axis, rank); ++a) outer *= x.dims[static_cast<size_t>(a)];
    return {reshaped(n, x, {outer, outer ? x.count() / outer : 0})};
  }
  if (op == "ConstantOfShape") {
    const std::vector<int64_t> dims = intsOf(n, need(n, in, 0));
    OnnxTensor value;
    value.floats = {0.0f};
    if (const OnnxAttr* a = n.attr("value"); a && a->kind == OnnxAttr::Kind::Tensor && !a->tensor.empty()) value = a->tensor[0];
    if (value.count() != 1) fail(n, "value must hold one element");
    OnnxTensor out = makeLike(value.isFloat, dims, n);
    for (int64_t i = 0; i < out.count(); ++i) copyElement(value, 0, out, i);
    return {out};
  }
  fail(n, "cannot be computed at import time");
}

}  // namespace netsmith::onnx_import
