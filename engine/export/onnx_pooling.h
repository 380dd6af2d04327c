// Note [Pooling windows] in ONNX terms, shared by MaxPooling's and AveragePooling's mappings
// (engine/ops/max_pooling/onnx.cpp, engine/ops/average_pooling/onnx.cpp). ignore_border true is
// ONNX's floor mode with symmetric pads. ignore_border false (ceil mode) gets an end pad just
// large enough for the last window instead of ceil_mode, whose rule differs from nnabla's.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/export/onnx_layers.h"

namespace netsmith {

struct OnnxPoolingWindow {
  std::vector<int64_t> kernel, stride, pad;  // (height, width)
  int64_t endPad[2] = {0, 0};                // >= pad: what the last window needs past the input
  bool overhang = false;                     // some endPad > pad (ceil mode reached past `pad`)
};

// The window of the pooling layer in `c`; Error naming the layer when ONNX's floor rule cannot
// give Netsmith's output size.
OnnxPoolingWindow onnxPoolingWindow(const OnnxLayerContext& c);

}  // namespace netsmith
