// The per-element bodies of MaxPooling's and AveragePooling's GPU kernels (pooling_kernel.cu),
// host-device so tst_cuda_kernel_bodies runs them on the CPU against the CPU kernels
// (engine/backend/cpu/pooling_kernel.cpp). Window rules: Note [Pooling windows]
// (engine/op_interface/pooling_rules.h). Forward: one output element each; backward gathers, for one
// input element, the windows that cover it, so it needs no atomics and is deterministic.
#pragma once

#include <cstdint>

#include "engine/core/half_floats.h"
#include "engine/core/host_device.h"

namespace netsmith::cuda::pool {

NS_HOST_DEVICE inline int minOf(int a, int b) { return a < b ? a : b; }
NS_HOST_DEVICE inline int maxOf(int a, int b) { return a > b ? a : b; }

// One axis of the window geometry (ops::PoolingAxis in int, the GPU's index width).
struct Axis {
  int in, out, kernel, stride, pad;
  NS_HOST_DEVICE int start(int o) const { return o * stride - pad; }
  NS_HOST_DEVICE int begin(int o) const { return maxOf(start(o), 0); }
  NS_HOST_DEVICE int end(int o) const { return minOf(start(o) + kernel, in); }
  NS_HOST_DEVICE int paddedExtent(int o) const { return minOf(start(o) + kernel, in + pad) - start(o); }
  // Outputs whose window covers input i: start(o) <= i < start(o) + kernel.
  NS_HOST_DEVICE int firstCovering(int i) const {
    const int num = i + pad - kernel + 1;
    return num <= 0 ? 0 : (num + stride - 1) / stride;
  }
  NS_HOST_DEVICE int lastCovering(int i) const { return minOf((i + pad) / stride, out - 1); }
};

// Where a (sample, channel) plane of a (N, C, h, w) tensor lies: channels first (its h·w values
// together) or channels last (Note [Channels last]: every C-th value). Planes are numbered n·C + c
// in both.
struct Planes {
  int64_t C = 0;      // read only when last
  bool last = false;
  // Element i: its plane, row and column.
  NS_HOST_DEVICE void decode(int64_t i, int h, int w, int64_t& plane, int& y, int& x) const {
    const int64_t spatial = last ? i / C : i;
    x = static_cast<int>(spatial % w);
    y = static_cast<int>((spatial / w) % h);
    plane = last ? (spatial / (static_cast<int64_t>(w) * h)) * C + i % C : spatial / (static_cast<int64_t>(w) * h);
  }
  // Where the plane's first value is, and how far apart its values are.
  NS_HOST_DEVICE int64_t base(int64_t plane, int h, int w) const {
    return last ? (plane / C) * h * w * C + plane % C : plane * h * w;
  }
  NS_HOST_DEVICE int64_t stride() const { return last ? C : 1; }
};

// 1 / the divisor of output (oh, ow): the window inside the padded input or inside the input.
NS_HOST_DEVICE inline float averageScale(const Axis& h, const Axis& w, int oh, int ow, bool includingPad) {
  const int count = includingPad ? h.paddedExtent(oh) * w.paddedExtent(ow)
                                 : (h.end(oh) - h.begin(oh)) * (w.end(ow) - w.begin(ow));
  return 1.0f / static_cast<float>(count);
}

// Output element i of (planes, h.out, w.out): its window's maximum, ties to the first in
// row-major order, and its plane-local input index (argmax) when asked. Starts from the window's
// first element, as the CPU kernel: a NaN there stays the result (starting from −∞ skipped it).
// F: the activations' format (Note [16-bit activations]); each body loads and sums in float32.
template <typename F>
struct MaxForwardOf {
  Axis h, w;
  Planes planes = {};
  NS_HOST_DEVICE void operator()(int64_t i, const typename F::Bits* x, typename F::Bits* y, int* argmax) const {
    int64_t plane;
    int oh, ow;
    planes.decode(i, h.out, w.out, plane, oh, ow);
    const typename F::Bits* xp = x + planes.base(plane, h.in, w.in);
    const int64_t s = planes.stride();
    int where = h.begin(oh) * w.in + w.begin(ow);
    float best = F::load(xp[where * s]);
    for (int ih = h.begin(oh); ih < h.end(oh); ++ih)
      for (int iw = w.begin(ow); iw < w.end(ow); ++iw) {
        const float v = F::load(xp[(ih * w.in + iw) * s]);
        if (v > best) {  // strict: ties keep the first in row-major order
          best = v;
          where = ih * w.in + iw;
        }
      }
    if (y) y[i] = F::store(best);
    if (argmax) argmax[i] = where;
  }
};
using MaxForward = MaxForwardOf<Float32Format>;

// Input element i of (planes, h.in, w.in): the sum of dy over the windows whose maximum it was.
template <typename F>
struct MaxBackwardOf {
  Axis h, w;
  Planes planes = {};
  NS_HOST_DEVICE void operator()(int64_t i, const typename F::Bits* dy, const int* argmax, typename F::Bits* dx) const {
    int64_t plane;
    int ih, iw;
    planes.decode(i, h.in, w.in, plane, ih, iw);
    const int self = ih * w.in + iw;
    const int64_t outBase = planes.base(plane, h.out, w.out), s = planes.stride();
    float sum = 0.0f;
    for (int oh = h.firstCovering(ih); oh <= h.lastCovering(ih); ++oh)
      for (int ow = w.firstCovering(iw); ow <= w.lastCovering(iw); ++ow) {
        const int64_t o = outBase + (oh * w.out + ow) * s;
        if (argmax[o] == self) sum += F::load(dy[o]);
      }
    dx[i] = F::store(sum);
  }
};
using MaxBackward = MaxBackwardOf<Float32Format>;

// Output element i: the window's sum (row-major, float) times averageScale.
template <typename F>
struct AverageForwardOf {
  Axis h, w;
  bool includingPad;
  Planes planes = {};
  NS_HOST_DEVICE void operator()(int64_t i, const typename F::Bits* x, typename F::Bits* y) const {
    int64_t plane;
    int oh, ow;
    planes.decode(i, h.out, w.out, plane, oh, ow);
    const typename F::Bits* xp = x + planes.base(plane, h.in, w.in);
    const int64_t s = planes.stride();
    float sum = 0.0f;
    for (int ih = h.begin(oh); ih < h.end(oh); ++ih)
      for (int iw = w.begin(ow); iw < w.end(ow); ++iw) sum += F::load(xp[(ih * w.in + iw) * s]);
    y[i] = F::store(sum * averageScale(h, w, oh, ow, includingPad));
  }
};
using AverageForward = AverageForwardOf<Float32Format>;

// Input element i: Σ dy·averageScale over the windows that cover it, in (oh, ow) order.
template <typename F>
struct AverageBackwardOf {
  Axis h, w;
  bool includingPad;
  Planes planes = {};
  NS_HOST_DEVICE void operator()(int64_t i, const typename F::Bits* dy, typename F::Bits* dx) const {
    int64_t plane;
    int ih, iw;
    planes.decode(i, h.in, w.in, plane, ih, iw);
    const int64_t outBase = planes.base(plane, h.out, w.out), s = planes.stride();
    float sum = 0.0f;
    for (int oh = h.firstCovering(ih); oh <= h.lastCovering(ih); ++oh)
      for (int ow = w.firstCovering(iw); ow <= w.lastCovering(iw); ++ow)
        sum += F::load(dy[outBase + (oh * w.out + ow) * s]) * averageScale(h, w, oh, ow, includingPad);
    dx[i] = F::store(sum);
  }
};
using AverageBackward = AverageBackwardOf<Float32Format>;

}  // namespace netsmith::cuda::pool
