// The per-element bodies of the backend's small kernels (cuda_elementwise.cu), shared by the GPU
// kernels and the simulator's host loops. body(i, args...) does element i.
#pragma once

#include <cstdint>

#include "engine/core/channels_last.h"
#include "engine/core/half_floats.h"
#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

struct Fill {
  NS_HOST_DEVICE void operator()(int64_t i, float* dst, float value) const { dst[i] = value; }
};
struct Accumulate {
  NS_HOST_DEVICE void operator()(int64_t i, float* acc, const float* x) const { acc[i] += x[i]; }
};
struct Scale {
  NS_HOST_DEVICE void operator()(int64_t i, float* dst, const float* src, float s) const { dst[i] = src[i] * s; }
};
template <typename F>
struct AddStored {
  NS_HOST_DEVICE void operator()(int64_t i, typename F::Bits* dst, const typename F::Bits* a,
                                 const typename F::Bits* b) const {
    dst[i] = F::store(F::load(a[i]) + F::load(b[i]));
  }
};
// A convolution's bias over (batch, C, S) activations of format F, and the ReLU that reads only
// this layer when it writes it (Note [GPU fused epilogues]): max(y + b, 0) in float32, stored once.
template <typename F>
struct ChannelBias {
  int64_t C, S;
  bool relu = false;
  bool channelsLast = false;  // Note [Channels last]
  NS_HOST_DEVICE void operator()(int64_t i, typename F::Bits* y, const float* b) const {
    const float v = F::load(y[i]) + b[channelAt(i, C, S, channelsLast)];
    y[i] = F::store(relu ? (v > 0.0f ? v : 0.0f) : v);
  }
};
// ReLU (ceiling 0: none) and ReLU6 (ceiling 6) on 16-bit activations (Note [16-bit activations]),
// where cuDNN's activations are left to float32: forward min(max(x, 0), ceiling); backward passes
// dy where 0 < v < ceiling, v the output for ReLU (which reads only its output: a fused producer
// never writes its input) and the input for ReLU6, as cuDNN's do.
template <typename F>
struct ClampForward {
  float ceiling = 0.0f;
  NS_HOST_DEVICE void operator()(int64_t i, const typename F::Bits* x, typename F::Bits* y) const {
    const float v = F::load(x[i]);
    const float r = v > 0.0f ? v : 0.0f;
    y[i] = F::store(ceiling > 0.0f && r > ceiling ? ceiling : r);
  }
};
template <typename F>
struct ClampBackward {
  float ceiling = 0.0f;
  NS_HOST_DEVICE void operator()(int64_t i, const typename F::Bits* v, const typename F::Bits* dy,
                                 typename F::Bits* dx) const {
    const float at = F::load(v[i]);
    const bool passes = at > 0.0f && (ceiling <= 0.0f || at < ceiling);
    dx[i] = passes ? dy[i] : F::store(0.0f);
  }
};
struct Add {
  NS_HOST_DEVICE void operator()(int64_t i, float* dst, const float* a, const float* b) const { dst[i] = a[i] + b[i]; }
};
// Note [Tree order over NCCL]: out[i] = parts[r * count + i] over the ranks r, added in Note
// [Reduction tree]'s order. Pairs are added bottom-up with an odd one carried to the next level,
// which is that tree: 3 ranks give (x0 + x1) + x2, 6 give ((x0 + x1) + (x2 + x3)) + (x4 + x5).
struct TreeSum {
  static constexpr int kMaxRanks = 8;
  NS_HOST_DEVICE void operator()(int64_t i, float* out, const float* parts, int ranks, int64_t count) const {
    float v[kMaxRanks];
    for (int r = 0; r < ranks; ++r) v[r] = parts[r * count + i];
    for (int n = ranks; n > 1; n = (n + 1) / 2) {
      for (int j = 0; j < n / 2; ++j) v[j] = v[2 * j] + v[2 * j + 1];
      if (n % 2) v[n / 2] = v[n - 1];
    }
    out[i] = v[0];
  }
};

}  // namespace netsmith::cuda::body
