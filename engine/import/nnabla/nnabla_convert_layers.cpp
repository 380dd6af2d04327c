// Converters of nnabla's parametric and structural functions (Note [NNabla import]): Affine,
// Convolution, Deconvolution, the poolings, BatchNormalization and the other normalizations,
// Dropout, Concatenate and the shape functions. nnabla's argument names are Netsmith's.
#include <algorithm>

#include "engine/core/error.h"
#include "engine/import/nnabla/nnabla_import_context.h"

namespace netsmith::nnabla_import {

namespace {

// A Shape argument of a 2-D window (kernel, pad, stride, dilation): two entries.
Json twoInts(NnContext& ctx, const NnFunction& f, const std::vector<int64_t>& v, const char* what) {
  if (v.size() != 2)
    ctx.fail(f, format("{} has {} entries ({}); Netsmith's layers work on 2-D maps (height, width)", what, v.size(),
                       shapeToString(Shape(v.begin(), v.end()))));
  return Json(v);
}

void notChannelLast(NnContext& ctx, const NnFunction& f) {
  if (ctx.param(f).flag("channel_last", false)) ctx.fail(f, "channel_last is true; Netsmith's maps are channels first (C, H, W)");
}

void baseAxisOne(NnContext& ctx, const NnFunction& f) {
  const int64_t b = ctx.param(f).integer("base_axis", 1);
  if (b != 1) ctx.fail(f, format("base_axis is {}; Netsmith's convolutions take one batch axis (base_axis 1)", b));
}

void convolution(NnContext& ctx, const NnFunction& f, bool transposed) {
  ctx.expectInputs(f, 2, 3);
  const ParamReader p = ctx.param(f);
  p.onlyFields({"base_axis", "pad", "stride", "dilation", "group", "channel_last", "output_padding"});
  baseAxisOne(ctx, f);
  notChannelLast(ctx, f);
  const std::vector<int64_t> w = ctx.parameterShape(f, 1);
  if (w.size() != 4) ctx.fail(f, format("its weight has {} axes; Netsmith's {} is 2-D (a 4-axis weight)", w.size(), f.type));
  const int64_t group = p.integer("group", 1);
  if (group < 1) ctx.fail(f, format("group is {}", group));
  Json params = {{"outmaps", transposed ? w[1] * group : w[0]},
                 {"kernel", {w[2], w[3]}},
                 {"pad", twoInts(ctx, f, p.shape("pad", {0, 0}), "pad")},
                 {"stride", twoInts(ctx, f, p.shape("stride", {1, 1}), "stride")},
                 {"dilation", twoInts(ctx, f, p.shape("dilation", {1, 1}), "dilation")},
                 {"group", group},
                 {"with_bias", ctx.hasInput(f, 2)}};
  if (transposed) {
    const std::vector<int64_t> op = p.shape("output_padding", {0, 0});
    if (std::any_of(op.begin(), op.end(), [](int64_t v) { return v != 0; }))
      ctx.fail(f, "output_padding is not 0; Netsmith's Deconvolution has no output padding");
  }
  std::vector<std::pair<std::string, size_t>> blobs{{"W", 1}};
  if (ctx.hasInput(f, 2)) blobs.emplace_back("b", 2);
  ctx.addLayer(f, transposed ? "Deconvolution" : "Convolution", {0}, params, blobs);
}

void pooling(NnContext& ctx, const NnFunction& f, const std::string& type) {
  ctx.expectInputs(f, 1, 1);
  const ParamReader p = ctx.param(f);
  const bool average = type == "AveragePooling";
  p.onlyFields(average ? std::vector<std::string>{"kernel", "stride", "ignore_border", "pad", "channel_last", "including_pad"}
                       : std::vector<std::string>{"kernel", "stride", "ignore_border", "pad", "channel_last"});
  notChannelLast(ctx, f);
  if (!p.has("kernel")) ctx.fail(f, "kernel is missing");
  const std::vector<int64_t> kernel = p.shape("kernel", {});
  Json params = {{"kernel", twoInts(ctx, f, kernel, "kernel")},
                 {"stride", twoInts(ctx, f, p.shape("stride", kernel), "stride")},
                 {"ignore_border", p.flag("ignore_border", true)},
                 {"pad", twoInts(ctx, f, p.shape("pad", {0, 0}), "pad")}};
  if (average) params["including_pad"] = p.flag("including_pad", true);
  ctx.addLayer(f, type, {0}, params);
}

void batchNormalization(NnContext& ctx, const NnFunction& f) {
  ctx.expectInputs(f, 5, 5);
  const ParamReader p = ctx.param(f);
  p.onlyFields({"axes", "decay_rate", "eps", "batch_stat", "no_scale", "no_bias"});
  if (p.flag("no_scale", false) || p.flag("no_bias", false))
    ctx.fail(f, "no_scale or no_bias is true; Netsmith's BatchNormalization always has gamma and beta");
  const std::vector<int64_t> axes = p.ints("axes", {1});
  if (axes != std::vector<int64_t>{1})
    ctx.fail(f, format("axes is ({}); Netsmith's BatchNormalization normalizes over axis 1 (the channels)",
                       shapeToString(Shape(axes.begin(), axes.end()))));
  const Json params = {{"axes", {1}},
                       {"decay_rate", p.number("decay_rate", 0.9)},
                       {"eps", p.number("eps", 1e-5)},
                       {"batch_stat", p.flag("batch_stat", true)}};
  ctx.addLayer(f, "BatchNormalization", {0}, params, {{"beta", 1}, {"gamma", 2}, {"mean", 3}, {"var", 4}});
}

// LayerNormalization, InstanceNormalization, GroupNormalization: mapped when this build's
// registry has the layer (issue 18 item 1 adds them), with nnabla's arguments and its (beta,
// gamma) inputs; the layer's own schema checks the arguments.
void otherNormalization(NnContext& ctx, const NnFunction& f) {
  if (!ctx.registry().find(f.type)) ctx.unsupported(f, format("(this build has no {} layer)", f.type));
  ctx.expectInputs(f, 1, 3);
  const ParamReader p = ctx.param(f);
  if (p.flag("no_scale", false) || p.flag("no_bias", false) || !ctx.hasInput(f, 1) || !ctx.hasInput(f, 2))
    ctx.fail(f, "no_scale or no_bias is true; the Netsmith layer always has gamma and beta");
  const std::vector<int64_t> batchAxis = p.ints("batch_axis", {0});
  if (batchAxis != std::vector<int64_t>{0}) ctx.fail(f, "batch_axis is not (0); Netsmith has one batch axis, the first");
  Json params = {{"eps", p.number("eps", 1e-5)}};
  if (f.type == "GroupNormalization") params["num_groups"] = p.integer("num_groups", 1);
  if (f.type != "LayerNormalization" && p.integer("channel_axis", 1) != 1) ctx.fail(f, "channel_axis is not 1 (the channels)");
  p.onlyFields({"num_groups", "channel_axis", "batch_axis", "eps", "no_scale", "no_bias"});
  ctx.addLayer(f, f.type, {0}, params, {{"beta", 1}, {"gamma", 2}});
}

void reshape(NnContext& ctx, const NnFunction& f) {
  ctx.expectInputs(f, 1, 1);
  const ParamReader p = ctx.param(f);
  p.onlyFields({"shape", "inplace"});
  // nnabla's shape includes the batch axis; the declared output variable gives the per-sample one.
  std::vector<int64_t> shape = p.shape("shape", {});
  const NnVariable* out = ctx.variable(f.outputs.at(0));
  if (out && out->hasShape && out->shape.size() >= 2) shape.assign(out->shape.begin() + 1, out->shape.end());
  else if (shape.size() >= 2) shape.erase(shape.begin());
  else ctx.fail(f, "its shape has no axis besides the batch axis");
  ctx.addLayer(f, "Reshape", {0}, {{"shape", shape}});
}

void concatenate(NnContext& ctx, const NnFunction& f) {
  ctx.expectInputs(f, 1, 1u << 16);
  const ParamReader p = ctx.param(f);
  p.onlyFields({"axis"});
  const size_t rank = ctx.inputShape(f, 0).size();
  const int64_t axis = sampleAxis(ctx, f, p.integer("axis", static_cast<int64_t>(rank)), rank, "axis");
  std::vector<size_t> data(f.inputs.size());
  for (size_t i = 0; i < data.size(); ++i) data[i] = i;
  if (data.size() == 1) {
    ctx.alias(f);
    return;
  }
  ctx.addLayer(f, "Concatenate", data, {{"axis", axis}});
}

void transpose(NnContext& ctx, const NnFunction& f) {
  ctx.expectInputs(f, 1, 1);
  const ParamReader p = ctx.param(f);
  p.onlyFields({"axes"});
  const std::vector<int64_t> axes = p.ints("axes", {});
  if (axes.empty() || axes[0] != 0) ctx.fail(f, "axes must keep the batch axis first (axes[0] = 0)");
  std::vector<int64_t> sample;
  for (size_t i = 1; i < axes.size(); ++i) sample.push_back(axes[i] - 1);
  ctx.addLayer(f, "Transpose", {0}, {{"axes", sample}});
}

void slice(NnContext& ctx, const NnFunction& f) {
  ctx.expectInputs(f, 1, 1);
  const ParamReader p = ctx.param(f);
  p.onlyFields({"start", "stop", "step"});
  std::vector<int64_t> start = p.ints("start", {}), stop = p.ints("stop", {}), step = p.ints("step", {});
  const size_t rank = ctx.inputShape(f, 0).size() + 1;
  if (start.size() != rank || stop.size() != rank || step.size() != rank)
    ctx.fail(f, format("start, stop and step must have one entry per axis of the {}-axis input", rank));
  if (start[0] != 0 || step[0] != 1) ctx.fail(f, "it slices the batch axis; Netsmith layers keep every sample");
  start.erase(start.begin());
  stop.erase(stop.begin());
  step.erase(step.begin());
  ctx.addLayer(f, "Slice", {0}, {{"start", start}, {"stop", stop}, {"step", step}});
}

void pad(NnContext& ctx, const NnFunction& f) {
  ctx.expectInputs(f, 1, 1);
  const ParamReader p = ctx.param(f);
  p.onlyFields({"pad_width", "mode", "constant_value"});
  std::vector<int64_t> width = p.ints("pad_width", {});
  const size_t rank = ctx.inputShape(f, 0).size();
  if (width.size() == 2 * (rank + 1)) {
    if (width[0] != 0 || width[1] != 0) ctx.fail(f, "it pads the batch axis; Netsmith layers keep every sample");
    width.erase(width.begin(), width.begin() + 2);
  }
  ctx.addLayer(f, "Pad", {0},
               {{"pad_width", width}, {"mode", p.text("mode", "constant")}, {"constant_value", p.number("constant_value", 0.0)}});
}

void interpolate(NnContext& ctx, const NnFunction& f) {
  ctx.expectInputs(f, 1, 1);
  const ParamReader p = ctx.param(f);
  p.onlyFields({"output_size", "mode", "align_corners", "half_pixel", "half_pixel_for_nn", "channel_last"});
  notChannelLast(ctx, f);
  const std::string mode = p.text("mode", "linear");
  Json params = {{"output_size", twoInts(ctx, f, p.ints("output_size", {}), "output_size")}, {"mode", mode}};
  if (mode == "linear") {
    params["align_corners"] = p.flag("align_corners", true);
    params["half_pixel"] = p.flag("half_pixel", false);
  } else if (mode == "nearest") {
    if (p.flag("half_pixel_for_nn", false) || p.flag("half_pixel", false))
      ctx.fail(f, "nearest with half_pixel or half_pixel_for_nn is not mapped");
    params["align_corners"] = false;
  } else {
    ctx.fail(f, format("mode '{}' is not linear or nearest", mode));
  }
  ctx.addLayer(f, "Interpolate", {0}, params);
}

}  // namespace

void addNnablaLayerConverters(NnConverterTable& t) {
  t["Affine"] = [](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 2, 3);
    const ParamReader p = ctx.param(f);
    p.onlyFields({"base_axis"});
    const int64_t baseAxis = p.integer("base_axis", 1);
    const std::vector<int64_t> w = ctx.parameterShape(f, 1);
    if (w.size() < 2) ctx.fail(f, format("its weight has {} axes; expected (inputs, outputs...)", w.size()));
    std::vector<std::pair<std::string, size_t>> blobs{{"W", 1}};
    if (ctx.hasInput(f, 2)) blobs.emplace_back("b", 2);
    ctx.addLayer(f, "Affine", {0},
                 {{"n_outmaps", std::vector<int64_t>(w.begin() + 1, w.end())}, {"base_axis", baseAxis}, {"with_bias", ctx.hasInput(f, 2)}},
                 blobs);
  };
  t["Convolution"] = [](NnContext& ctx, const NnFunction& f) { convolution(ctx, f, false); };
  t["Deconvolution"] = [](NnContext& ctx, const NnFunction& f) { convolution(ctx, f, true); };
  t["MaxPooling"] = [](NnContext& ctx, const NnFunction& f) { pooling(ctx, f, "MaxPooling"); };
  t["AveragePooling"] = [](NnContext& ctx, const NnFunction& f) { pooling(ctx, f, "AveragePooling"); };
  t["GlobalAveragePooling"] = [](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 1, 1);
    ctx.param(f).onlyFields({});
    ctx.addLayer(f, "GlobalAveragePooling", {0});
  };
  t["Unpooling"] = [](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 1, 1);
    const ParamReader p = ctx.param(f);
    p.onlyFields({"kernel", "channel_last"});
    notChannelLast(ctx, f);
    ctx.addLayer(f, "Unpooling", {0}, {{"kernel", p.shape("kernel", {})}});
  };
  t["BatchNormalization"] = batchNormalization;
  t["LayerNormalization"] = otherNormalization;
  t["InstanceNormalization"] = otherNormalization;
  t["GroupNormalization"] = otherNormalization;
  t["Dropout"] = [](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 1, 1);
    const ParamReader p = ctx.param(f);
    p.onlyFields({"p", "seed"});
    ctx.addLayer(f, "Dropout", {0}, {{"p", p.number("p", 0.5)}});
  };
  t["Reshape"] = reshape;
  t["Concatenate"] = concatenate;
  t["Transpose"] = transpose;
  t["Slice"] = slice;
  t["Pad"] = pad;
  t["Interpolate"] = interpolate;
}

}  // namespace netsmith::nnabla_import
