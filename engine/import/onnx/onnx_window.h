// The 2-D window of an ONNX Conv, ConvTranspose, MaxPool or AveragePool node (kernel, strides,
// dilations, pads from the attributes or auto_pad), for the converters, inside engine/import.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/import/onnx/onnx_import_context.h"

namespace netsmith::onnx_import {

struct Window2d {
  std::vector<int64_t> kernel{1, 1}, stride{1, 1}, dilation{1, 1}, padBegin{0, 0}, padEnd{0, 0};
};

// `in` is the per-sample (channels, height, width) shape; `kernel` the window size. A Padded input
// (a Pad merged into this node) adds its zeros to both sides.
inline Window2d windowOf(const ImportContext& c, const OnnxNodeDef& n, const Value& input, std::vector<int64_t> kernel) {
  if (input.shape.size() != 3)
    c.fail(n, format("works on a (channels, height, width) input here, got ({}); Netsmith's windows are 2-D",
                     shapeToString(input.shape)));
  if (kernel.size() != 2) c.fail(n, format("has a {}-D window; Netsmith's layers have 2-D windows", kernel.size()));
  Window2d w;
  w.kernel = kernel;
  w.stride = c.intsAttr(n, "strides", {1, 1});
  w.dilation = c.intsAttr(n, "dilations", {1, 1});
  const std::vector<int64_t> pads = c.intsAttr(n, "pads", {0, 0, 0, 0});
  if (w.stride.size() != 2 || w.dilation.size() != 2 || pads.size() != 4)
    c.fail(n, "strides, dilations and pads must describe 2 axes");
  for (int a = 0; a < 2; ++a) {
    if (w.kernel[a] < 1 || w.stride[a] < 1 || w.dilation[a] < 1)
      c.fail(n, "kernel, strides and dilations must be positive");
    w.padBegin[a] = pads[a];
    w.padEnd[a] = pads[a + 2];
    if (w.padBegin[a] < 0 || w.padEnd[a] < 0) c.fail(n, "has negative pads");
  }
  const std::string autoPad = c.stringAttr(n, "auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.padBegin = w.padEnd = {0, 0};
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int a = 0; a < 2; ++a) {
      const int64_t in = input.shape[1 + a], out = (in + w.stride[a] - 1) / w.stride[a];
      const int64_t total = std::max<int64_t>(0, (out - 1) * w.stride[a] + (w.kernel[a] - 1) * w.dilation[a] + 1 - in);
      w.padBegin[a] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.padEnd[a] = total - w.padBegin[a];
    }
  } else if (autoPad != "NOTSET") {
    c.fail(n, format("auto_pad '{}' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER", autoPad));
  }
  if (input.kind == Value::Kind::Padded) {
    w.padBegin[0] += input.padHeight;
    w.padEnd[0] += input.padHeight;
    w.padBegin[1] += input.padWidth;
    w.padEnd[1] += input.padWidth;
  }
  return w;
}

// The same padding on both sides of each axis, as Netsmith's layers pad; an error otherwise.
inline std::vector<int64_t> symmetricPad(const ImportContext& c, const OnnxNodeDef& n, const Window2d& w) {
  for (int a = 0; a < 2; ++a)
    if (w.padBegin[a] != w.padEnd[a])
      c.unsupported(n, format("with padding {} before and {} after along {}: Netsmith's layers pad both sides alike",
                              w.padBegin[a], w.padEnd[a], a == 0 ? "height" : "width"));
  return w.padBegin;
}

}  // namespace netsmith::onnx_import
