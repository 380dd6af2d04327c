// Window geometry shared by MaxPooling and AveragePooling: their parameters, shape inference and
// the per-axis window ranges every backend's kernels use (Note [Pooling windows]).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

// Note [Pooling windows]: as in nnabla, output o of an axis pools the window that starts at
// o * stride - pad in the input padded by `pad` on both sides. With ignore_border true only
// windows that fit the padded input count (out = (in + 2 pad - kernel) / stride + 1). With
// ignore_border false the axis has ceil((in + 2 pad) / stride) outputs, so the last windows may
// run past the padded input; nothing is read there. Max pooling never picks padding; average
// pooling divides by the part of the window inside the padded input (including_pad true) or
// inside the input (including_pad false), nnabla's pool_size.
struct PoolingAxis {
  int64_t in = 0;
  int64_t out = 0;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t pad = 0;

  int64_t start(int64_t o) const { return o * stride - pad; }
  // The input range [begin, end) that window o reads.
  int64_t begin(int64_t o) const { return std::max<int64_t>(start(o), 0); }
  int64_t end(int64_t o) const { return std::min(start(o) + kernel, in); }
  // The window's extent inside the padded input (the divisor with including_pad true).
  int64_t paddedExtent(int64_t o) const { return std::min(start(o) + kernel, in + pad) - start(o); }
};

struct PoolingGeometry {
  int64_t channels = 0;
  PoolingAxis height;
  PoolingAxis width;

  Shape outputShape() const { return {channels, height.out, width.out}; }
};

// kernel, stride, ignore_border, pad: the parameters of MaxPooling and AveragePooling.
inline std::vector<ParamSpec> poolingParams() {
  return {
      {.name = "kernel", .type = ParamType::Ints, .defaultValue = Json::array({2, 2}), .min = 1.0, .length = 2,
       .help = "window size (height, width)"},
      {.name = "stride", .type = ParamType::Ints, .defaultValue = Json::array({2, 2}), .min = 1.0, .length = 2,
       .help = "step between windows (height, width); usually equal to kernel"},
      {.name = "ignore_border", .type = ParamType::Bool, .defaultValue = true,
       .help = "true: windows that do not fit the padded input are dropped; false: partial windows at the "
               "bottom and right borders also give outputs (ceil mode)"},
      {.name = "pad", .type = ParamType::Ints, .defaultValue = Json::array({0, 0}), .min = 0.0, .length = 2,
       .help = "padding added on both sides (height, width); must be smaller than kernel"},
  };
}

namespace detail {
inline PoolingAxis poolingAxis(int64_t in, int64_t kernel, int64_t stride, int64_t pad, bool ignoreBorder,
                               const char* axisName) {
  PoolingAxis a{in, 0, kernel, stride, pad};
  NS_CHECK(pad < kernel,
           "pad {} along {} is not smaller than the kernel ({}): the first window would cover only padding; "
           "use a pad below {}",
           pad, axisName, kernel, kernel);
  if (ignoreBorder) {
    a.out = windowOutput(in, kernel, pad, stride, 1, axisName);
  } else {
    a.out = (in + 2 * pad + stride - 1) / stride;
    NS_CHECK(a.start(a.out - 1) < in,
             "with ignore_border false the last window along {} would start in the padding after the input "
             "({} + 2×{} pad, stride {}): use a smaller pad or a larger stride, or set ignore_border to true",
             axisName, in, pad, stride);
  }
  return a;
}
}  // namespace detail

// The geometry of a pooling layer for a per-sample input shape; throws Error naming `opName`
// when the input is not (channels, height, width) or the windows do not fit.
inline PoolingGeometry poolingGeometry(const char* opName, const Shape& input, const OpParams& params) {
  if (input.size() != 3) {
    const char* hint = input.size() < 3 ? "pool before the Affine and Flatten layers"
                                        : "Reshape it to (channels, height, width) first";
    NS_THROW("{} expects a (channels, height, width) input, got {}: {}", opName, shapeToString(input), hint);
  }
  const auto kernel = params.ints("kernel");
  const auto stride = params.ints("stride");
  const auto pad = params.ints("pad");
  const bool ignoreBorder = params.flag("ignore_border");
  PoolingGeometry g;
  g.channels = input[0];
  g.height = detail::poolingAxis(input[1], kernel[0], stride[0], pad[0], ignoreBorder, "height");
  g.width = detail::poolingAxis(input[2], kernel[1], stride[1], pad[1], ignoreBorder, "width");
  return g;
}

}  // namespace netsmith::ops
