// Parameters and shape checks shared by Convolution and Deconvolution (nnabla's argument names).
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::ops {

inline ParamSpec convParam(std::string name, ParamType type, Json defaultValue, std::optional<double> min,
                           int length, std::string help) {
  ParamSpec p;
  p.name = std::move(name);
  p.type = type;
  p.defaultValue = std::move(defaultValue);
  p.min = min;
  p.length = length;
  p.help = std::move(help);
  return p;
}

inline std::vector<ParamSpec> convParams(const char* outmapsHelp) {
  return {
      convParam("outmaps", ParamType::Int, 16, 1, 0, outmapsHelp),
      convParam("kernel", ParamType::Ints, {3, 3}, 1, 2, "window size (height, width)"),
      convParam("pad", ParamType::Ints, {0, 0}, 0, 2, "zeros added on each side (height, width)"),
      convParam("stride", ParamType::Ints, {1, 1}, 1, 2, "step between windows (height, width)"),
      convParam("dilation", ParamType::Ints, {1, 1}, 1, 2,
                "spacing between kernel taps (height, width); 1 is a dense kernel"),
      convParam("group", ParamType::Int, 1, 1, 0, "channel groups; must divide both the input channels and outmaps"),
      convParam("with_bias", ParamType::Bool, true, std::nullopt, 0, "add a learned bias per output map"),
  };
}

// Throws unless `input` is (channels, height, width), suggesting the Reshape that would make it so.
inline void checkImageInput(const char* op, const Shape& input) {
  if (input.size() == 3) return;
  std::string reshape = "channels,height,width";
  if (input.size() == 1) {
    const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(input[0]))));
    if (side * side == input[0]) reshape = format("1,{},{}", side, side);
  } else if (input.size() == 2) {
    reshape = format("1,{},{}", input[0], input[1]);
  }
  NS_THROW("{} expects a (channels, height, width) input, got {}: put a Reshape to {} before it", op,
           input.empty() ? std::string("a scalar") : shapeToString(input), reshape);
}

inline void checkGroups(const char* op, int64_t inmaps, int64_t outmaps, int64_t group) {
  NS_CHECK(inmaps % group == 0 && outmaps % group == 0,
           "{} group {} must divide both the {} input channels and the {} outmaps: choose a group that divides "
           "both, or change outmaps",
           op, group, inmaps, outmaps);
}

}  // namespace netsmith::ops
