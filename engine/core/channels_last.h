// Note [Channels last]
// Tensor cores read convolutions' activations fastest channels last (NHWC): cuDNN transposes NCHW
// tensors into NHWC around its tensor-core kernels, and its NHWC kernels skip that (PyTorch's
// channels_last memory format, what an expert runs with autocast). So on a GPU that stores
// activations in 16 bits (Note [16-bit activations], engine/model/network.cpp), a layer whose
// kernel takes channels-last tensors (OpSchema::takesChannelsLast: Convolution, BatchNormalization,
// the poolings, ReLU, ReLU6, Add2) keeps its (N, C, H, W) activations and their gradients in NHWC
// memory order; the shape stays (N, C, H, W), only Tensor::layout() says the order. Layers that
// read memory in NCHW order (Affine, Flatten, Reshape, every other layer) get an NCHW copy, made by
// the same conversions as storages (DeviceContext::convert permutes as it converts). A float32 GPU
// stays NCHW: cuDNN's float32 kernels are not tensor-core ones. The rule is the one PyTorch users
// follow; it was not measured here (no GPU): NETSMITH_CHANNELS_LAST=off keeps NCHW, to compare.
// Simulated GPUs keep the same NHWC memory and hand their CPU kernels NCHW copies.
#pragma once

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith {

// For a (N, C, H, W) tensor with S = H·W: the position, in a tensor of layout `fromLast` (channels
// last when true), of the value at position i of a tensor of layout `toLast`.
NS_HOST_DEVICE inline int64_t layoutSource(int64_t i, int64_t C, int64_t S, bool toLast, bool fromLast) {
  if (toLast == fromLast) return i;
  if (toLast) {  // i is (n, s, c)
    const int64_t c = i % C, s = (i / C) % S, n = i / (C * S);
    return (n * C + c) * S + s;
  }
  const int64_t s = i % S, c = (i / S) % C, n = i / (C * S);  // i is (n, c, s)
  return (n * S + s) * C + c;
}

// layoutSource for one pair of tensors; the identity when their layouts agree.
struct LayoutMap {
  int64_t C = 1, S = 1;
  bool toLast = false, fromLast = false;
  NS_HOST_DEVICE int64_t source(int64_t i) const { return layoutSource(i, C, S, toLast, fromLast); }
};

// The channel of position i of a (N, C, H, W) tensor in either layout.
NS_HOST_DEVICE inline int64_t channelAt(int64_t i, int64_t C, int64_t S, bool last) {
  return last ? i % C : (i / S) % C;
}

}  // namespace netsmith
