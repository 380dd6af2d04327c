// Interpolate's arithmetic (Note [Interpolate coordinates]), run by both backends
// (interpolate/schema.cpp on the CPU, interpolate/cuda.cu on the GPU).
//
// Note [Interpolate coordinates]: nnabla's rules, per resized axis (in -> out values):
//   linear:  s = out <= 1 ? 0 : align_corners ? (in - 1) / (out - 1) : in / out;
//            source c = half_pixel ? max(0, s · (o + 0.5) − 0.5) : s · o;
//            i0 = floor(c), i1 = min(i0 + 1, in − 1), weights 1 − (c − i0) and c − i0.
//   nearest: s = in / out; c = half_pixel ? s · (o + 0.5) : s · o; i = min(floor(c), in − 1)
//            (align_corners must be false, as nnabla requires).
// In ONNX Resize terms: align_corners; pytorch_half_pixel (half_pixel, but position 0 for an
// output of size 1, as s = 0 gives); asymmetric (linear), and asymmetric or
// tf_half_pixel_for_nn with nearest_mode floor (nearest). Backward is a gather: each input value
// sums the output gradients whose weights reach it, found by binary search over the output
// positions (the source index never decreases with o), so no two threads write one value.
#pragma once

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::interp {

struct Axis {
  int64_t in = 1, out = 1;
  float scale = 0.0f;
  bool linear = true, halfPixel = false;

  NS_HOST_DEVICE float source(int64_t o) const {
    const float of = static_cast<float>(o);
    if (!linear) return halfPixel ? scale * (of + 0.5f) : scale * of;
    if (!halfPixel) return scale * of;
    const float c = scale * (of + 0.5f) - 0.5f;
    return c > 0.0f ? c : 0.0f;
  }
  // The first (or, nearest, the only) input position output position o reads.
  NS_HOST_DEVICE int64_t lower(int64_t o) const {
    const int64_t i = static_cast<int64_t>(source(o));
    return i < in - 1 ? i : in - 1;
  }
  // The weight of input position i in output position o.
  NS_HOST_DEVICE float weight(int64_t o, int64_t i) const {
    const int64_t i0 = lower(o);
    if (!linear) return i0 == i ? 1.0f : 0.0f;
    const int64_t i1 = i0 + 1 < in ? i0 + 1 : in - 1;
    const float l1 = source(o) - static_cast<float>(i0);
    return (i0 == i ? 1.0f - l1 : 0.0f) + (i1 == i ? l1 : 0.0f);
  }
  // The first output position whose lower() is at least i (out when none is).
  NS_HOST_DEVICE int64_t firstAtLeast(int64_t i) const {
    int64_t lo = 0, hi = out;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (lower(mid) >= i) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
};

// The axis resized from `in` to `out` values.
inline Axis makeAxis(int64_t in, int64_t out, bool linear, bool alignCorners, bool halfPixel) {
  Axis a;
  a.in = in;
  a.out = out;
  a.linear = linear;
  a.halfPixel = halfPixel;
  if (!linear) a.scale = static_cast<float>(in) / static_cast<float>(out);
  else if (out <= 1) a.scale = 0.0f;
  else a.scale = alignCorners ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                              : static_cast<float>(in) / static_cast<float>(out);
  return a;
}

namespace body {

// y over (planes, out H, out W); x is (planes, in H, in W).
struct InterpolateForward {
  Axis h, w;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const {
    const int64_t ox = i % w.out, oy = (i / w.out) % h.out, plane = i / (w.out * h.out);
    const float* src = x + plane * h.in * w.in;
    const int64_t y1 = h.lower(oy), x1 = w.lower(ox);
    if (!h.linear) {
      y[i] = src[y1 * w.in + x1];
      return;
    }
    const int64_t y2 = y1 + 1 < h.in ? y1 + 1 : h.in - 1, x2 = x1 + 1 < w.in ? x1 + 1 : w.in - 1;
    const float ly1 = h.source(oy) - static_cast<float>(y1), ly0 = 1.0f - ly1;
    const float lx1 = w.source(ox) - static_cast<float>(x1), lx0 = 1.0f - lx1;
    y[i] = ly0 * (lx0 * src[y1 * w.in + x1] + lx1 * src[y1 * w.in + x2]) +
           ly1 * (lx0 * src[y2 * w.in + x1] + lx1 * src[y2 * w.in + x2]);
  }
};

// dx over (planes, in H, in W): Σ weight_h · weight_w · dy over the outputs that read it.
struct InterpolateBackward {
  Axis h, w;
  NS_HOST_DEVICE void operator()(int64_t j, const float* dy, float* dx) const {
    const int64_t ix = j % w.in, iy = (j / w.in) % h.in, plane = j / (w.in * h.in);
    const float* g = dy + plane * h.out * w.out;
    const int64_t back = h.linear ? 1 : 0;
    const int64_t oy0 = h.firstAtLeast(iy - back), oy1 = h.firstAtLeast(iy + 1);
    const int64_t ox0 = w.firstAtLeast(ix - back), ox1 = w.firstAtLeast(ix + 1);
    double sum = 0.0;
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const float wy = h.weight(oy, iy);
      if (wy == 0.0f) continue;
      for (int64_t ox = ox0; ox < ox1; ++ox)
        sum += static_cast<double>(wy) * static_cast<double>(w.weight(ox, ix)) * static_cast<double>(g[oy * w.out + ox]);
    }
    dx[j] = static_cast<float>(sum);
  }
};

}  // namespace body
}  // namespace netsmith::cuda::interp
