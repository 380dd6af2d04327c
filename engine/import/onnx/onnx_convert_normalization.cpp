// Converters of ONNX's per-sample normalizations (Note [ONNX import]): LayerNormalization (opset
// 17), InstanceNormalization and GroupNormalization (opset 18) become the Netsmith layers of the
// same names (Note [Row normalization]). Only the native operators: a model that spells one out
// (ReduceMean, Sub, Pow, ... as PyTorch writes LayerNorm below opset 17) keeps those operators,
// which the importer maps one by one or refuses.
#include <cstdio>
#include <cstdlib>

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

}  // namespace

void addNormalizationConverters(ConverterTable& t) {
  t["LayerNormalization"] = layerNormalization;
  t["InstanceNormalization"] = instanceNormalization;
  t["GroupNormalization"] = groupNormalization;
}

}  // namespace netsmith::onnx_import
