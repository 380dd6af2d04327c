// InstanceNormalization's geometry (nnabla's F.instance_normalization with channel_axis 1): each
// (sample, channel) plane of a (C, ...) input is normalized over its own values; gamma and beta
// hold one value per channel, (C) as BatchNormalization's (nnabla writes them (1, C, 1, 1)).
#pragma once

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"
#include "engine/ops/row_normalization.h"

namespace netsmith::ops {

// Throws when the input or the parameters cannot be normalized per channel.
inline void checkChannelNormalization(const char* op, const Shape& x, const OpParams& params) {
  NS_CHECK(params.integer("channel_axis") == 1,
           "channel_axis {} is not supported: {} normalizes the channels of a (C, ...) input; set channel_axis to 1 "
           "(the axis after the batch, counting the batch axis as 0 as nnabla does)",
           params.integer("channel_axis"), op);
  NS_CHECK(params.number("eps") > 0.0, "eps must be greater than 0, got {}: the default is 1e-05", params.number("eps"));
  NS_CHECK(!x.empty(), "{} expects a (C, ...) input such as (C, H, W), got a scalar", op);
}

inline RowNormGeometry instanceNormGeometry(const Shape& x, const OpParams& params) {
  checkChannelNormalization("InstanceNormalization", x, params);
  NS_CHECK(x.size() >= 2,
           "InstanceNormalization normalizes each channel over the axes after it, but the input ({}) has none: give it "
           "a (C, H, W) or (C, L) input, or use LayerNormalization for a vector",
           shapeToString(x));
  RowNormGeometry g;
  g.paramCount = x[0];
  g.paramInner = numel(x) / x[0];
  g.rowLength = g.paramInner;
  g.scale = !params.flag("no_scale");
  g.bias = !params.flag("no_bias");
  g.eps = static_cast<float>(params.number("eps"));
  return g;
}

// The parameters InstanceNormalization and GroupNormalization share (after GroupNormalization's
// num_groups), with nnabla's names and defaults.
inline std::vector<ParamSpec> channelNormParams() {
  return {
      {.name = "channel_axis", .type = ParamType::Int, .defaultValue = 1, .min = 0.0,
       .help = "the channel axis, counting the batch axis as 0 as Neural Network Console does; only 1 is supported"},
      {.name = "eps", .type = ParamType::Float, .defaultValue = 1e-5, .min = 0.0,
       .help = "added to the variance before the square root; greater than 0"},
      {.name = "no_scale", .type = ParamType::Bool, .defaultValue = false, .help = "true: no gamma (scale 1)"},
      {.name = "no_bias", .type = ParamType::Bool, .defaultValue = false, .help = "true: no beta (shift 0)"},
  };
}

// beta then gamma, (C) each, as present.
inline std::vector<ParamBlob> channelNormBlobs(const Shape& x, const OpParams& params) {
  const Shape channels{x.at(0)};
  std::vector<ParamBlob> blobs;
  if (!params.flag("no_bias")) blobs.push_back({.name = "beta", .shape = channels, .init = Initializer::constant(0.0f)});
  if (!params.flag("no_scale")) blobs.push_back({.name = "gamma", .shape = channels, .init = Initializer::constant(1.0f)});
  return blobs;
}

}  // namespace netsmith::ops
