// Note [Index views]: the shape layers (Transpose, Slice, ChannelShuffle, Pad, Identity,
// Unpooling), the reductions (Sum, Mean, Max) and the broadcasting arithmetic (Mul2, Sub2, Div2)
// move values by index arithmetic only. Each is described by one of the views below, built on the
// host from the per-sample shapes and parameters (index_view_build.h), and run by the same
// host-device bodies on both backends: a parallel loop on the CPU (cpu/index_view_kernels.h) and
// a grid-stride kernel on the GPU (cuda/index_view_kernels.cuh). So the gradient check of the CPU
// kernel checks the GPU's arithmetic too, and tst_index_views checks the views against closed
// forms. Dimension 0 is always the batch; its size is set per call (a short last batch). The
// exception: the GPU spreads the sums and maxima (SumReduce, MaxReduce, their backwards,
// BinaryBackward) over many threads with the same terms in another fixed order
// (index_view_reductions.h, Note [Deterministic GPU reductions]); tst_cuda_reduction_bodies
// checks that form against the bodies below.
//
//   IndexView:     output element i -> input element (or none: a padded position).
//   ReduceView:    output element o -> the input elements it reduces (disjoint between outputs,
//                  so a backward that writes them from o needs no atomics).
//   BroadcastView: output element i -> one element of each of two inputs (stride 0 where an
//                  input has size 1: numpy broadcasting).
#pragma once

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda {

constexpr int kMaxViewRank = 8;
constexpr int64_t kUnbounded = INT64_MAX;

struct IndexView {
  int rank = 0;
  int64_t dims[kMaxViewRank] = {};    // the output's dims, walked in row-major order
  int64_t stride[kMaxViewRank] = {};  // input elements per unit of the input coordinate (0: repeat)
  int64_t start[kMaxViewRank] = {};   // input coordinate at output coordinate 0 (< 0: padding)
  int64_t step[kMaxViewRank] = {};    // input coordinate per output coordinate
  int64_t bound[kMaxViewRank] = {};   // the input coordinate must lie in [0, bound)
  // Outside [0, bound): false reads nothing (the fill value); true mirrors the coordinate at the
  // first and last entries (Pad's "reflect": -1 reads 1, bound reads bound - 2).
  bool reflect = false;

  // The input offset read by output element i, or -1 when it lies outside the input.
  NS_HOST_DEVICE int64_t source(int64_t i) const {
    int64_t offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t o = i % dims[d];
      i /= dims[d];
      int64_t c = start[d] + o * step[d];
      if (reflect) c = c < 0 ? -c : (c >= bound[d] ? 2 * (bound[d] - 1) - c : c);
      if (c < 0 || c >= bound[d]) return -1;
      offset += c * stride[d];
    }
    return offset;
  }
};

struct ReduceView {
  int keptRank = 0;
  int64_t keptDims[kMaxViewRank] = {};    // the output's dims (batch first)
  int64_t keptStride[kMaxViewRank] = {};  // input elements per output coordinate
  int redRank = 0;
  int64_t redDims[kMaxViewRank] = {};     // the reduced dims, row-major
  int64_t redStride[kMaxViewRank] = {};
  int64_t count = 1;                      // product of redDims

  NS_HOST_DEVICE int64_t base(int64_t o) const {
    int64_t offset = 0;
    for (int d = keptRank - 1; d >= 0; --d) {
      offset += (o % keptDims[d]) * keptStride[d];
      o /= keptDims[d];
    }
    return offset;
  }
  NS_HOST_DEVICE int64_t offset(int64_t r) const {
    int64_t offset = 0;
    for (int d = redRank - 1; d >= 0; --d) {
      offset += (r % redDims[d]) * redStride[d];
      r /= redDims[d];
    }
    return offset;
  }
};

struct BroadcastView {
  int rank = 0;
  int64_t dims[kMaxViewRank] = {};
  int64_t strideA[kMaxViewRank] = {};
  int64_t strideB[kMaxViewRank] = {};

  NS_HOST_DEVICE void offsets(int64_t i, int64_t& a, int64_t& b) const {
    a = 0;
    b = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t o = i % dims[d];
      i /= dims[d];
      a += o * strideA[d];
      b += o * strideB[d];
    }
  }
};

namespace body {

// y[i] = x[source(i)], or `fill` where the view is outside the input (Pad's border).
struct GatherForward {
  IndexView view;
  float fill;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const {
    const int64_t s = view.source(i);
    y[i] = s < 0 ? fill : x[s];
  }
};

// dx[source(i)] = dy[i], for views that read each input element at most once (dx zeroed first).
struct ScatterBackward {
  IndexView view;
  NS_HOST_DEVICE void operator()(int64_t i, const float* dy, float* dx) const {
    const int64_t s = view.source(i);
    if (s >= 0) dx[s] = dy[i];
  }
};

// Pad "reflect"'s backward for input element j (view: start = -before, step 1, stride = the
// input's row-major strides, bound = the input's size; dims[0] the batch): the sum of dy over the
// up to 3 output coordinates per axis that read j's coordinate (itself and its two mirrors),
// over every combination of axes. Each output is read once per input element: no atomics.
struct ReflectBackward {
  IndexView view;
  NS_HOST_DEVICE void operator()(int64_t j, const float* dy, float* dx) const {
    int64_t cand[kMaxViewRank][3];
    int count[kMaxViewRank];
    int64_t outStride[kMaxViewRank];
    int64_t s = 1;
    for (int d = view.rank - 1; d >= 0; --d) {
      outStride[d] = s;
      s *= view.dims[d];
    }
    int64_t rest = j;
    for (int d = view.rank - 1; d >= 0; --d) {
      const int64_t size = d == 0 ? view.dims[0] : view.bound[d];
      const int64_t c = rest % size;
      rest /= size;
      const int64_t before = -view.start[d];
      int n = 0;
      cand[d][n++] = c + before;
      if (c > 0 && c <= before) cand[d][n++] = before - c;  // left mirror
      const int64_t right = 2 * (size - 1) - c + before;     // right mirror
      if (d > 0 && c < size - 1 && right < view.dims[d]) cand[d][n++] = right;
      count[d] = n;
    }
    int64_t combos = 1;
    for (int d = 0; d < view.rank; ++d) combos *= count[d];
    double sum = 0.0;
    for (int64_t k = 0; k < combos; ++k) {
      int64_t r = k, offset = 0;
      for (int d = view.rank - 1; d >= 0; --d) {
        offset += cand[d][r % count[d]] * outStride[d];
        r /= count[d];
      }
      sum += static_cast<double>(dy[offset]);
    }
    dx[j] = static_cast<float>(sum);
  }
};

// y[o] = scale · Σ x over o's reduced elements, summed in double in a fixed order.
struct SumReduce {
  ReduceView view;
  float scale;
  NS_HOST_DEVICE void operator()(int64_t o, const float* x, float* y) const {
    const int64_t b = view.base(o);
    double sum = 0.0;
    for (int64_t r = 0; r < view.count; ++r) sum += static_cast<double>(x[b + view.offset(r)]);
    y[o] = static_cast<float>(sum * static_cast<double>(scale));
  }
};

// dx = scale · dy[o] for each of o's reduced elements.
struct SumReduceBackward {
  ReduceView view;
  float scale;
  NS_HOST_DEVICE void operator()(int64_t o, const float* dy, float* dx) const {
    const int64_t b = view.base(o);
    const float g = dy[o] * scale;
    for (int64_t r = 0; r < view.count; ++r) dx[b + view.offset(r)] = g;
  }
};

// The first largest of o's elements (nnabla's Max: the gradient goes to one element).
NS_HOST_DEVICE inline int64_t argMax(const ReduceView& view, const float* x, int64_t base) {
  int64_t best = 0;
  float value = x[base + view.offset(0)];
  for (int64_t r = 1; r < view.count; ++r) {
    const float v = x[base + view.offset(r)];
    if (v > value) {
      value = v;
      best = r;
    }
  }
  return best;
}

struct MaxReduce {
  ReduceView view;
  NS_HOST_DEVICE void operator()(int64_t o, const float* x, float* y) const {
    const int64_t b = view.base(o);
    y[o] = x[b + view.offset(argMax(view, x, b))];
  }
};

struct MaxReduceBackward {
  ReduceView view;
  NS_HOST_DEVICE void operator()(int64_t o, const float* x, const float* dy, float* dx) const {
    const int64_t b = view.base(o);
    const int64_t best = argMax(view, x, b);
    for (int64_t r = 0; r < view.count; ++r) dx[b + view.offset(r)] = r == best ? dy[o] : 0.0f;
  }
};

// The element-wise functions of Mul2, Sub2, Div2 and their partial derivatives.
enum class BinaryOp { Mul, Sub, Div };

NS_HOST_DEVICE inline float binaryValue(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Sub: return a - b;
    default: return a / b;
  }
}
NS_HOST_DEVICE inline float binaryDerivA(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Mul: return b;
    case BinaryOp::Sub: return 1.0f;
    default: return 1.0f / b;
  }
}
NS_HOST_DEVICE inline float binaryDerivB(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Mul: return a;
    case BinaryOp::Sub: return -1.0f;
    default: return -a / (b * b);
  }
}

struct BinaryForward {
  BroadcastView view;
  BinaryOp op;
  NS_HOST_DEVICE void operator()(int64_t i, const float* a, const float* b, float* y) const {
    int64_t ia, ib;
    view.offsets(i, ia, ib);
    y[i] = binaryValue(op, a[ia], b[ib]);
  }
};

// The gradient of one input (wrtB: the second), element j of it: the sum of dy · ∂y/∂input over
// the output elements that read it. `sum` walks them: kept dims are the input's, reduced dims
// are those the input is broadcast along, strides in the output.
struct BinaryBackward {
  BroadcastView view;
  ReduceView sum;
  BinaryOp op;
  bool wrtB;
  NS_HOST_DEVICE void operator()(int64_t j, const float* a, const float* b, const float* dy, float* dx) const {
    const int64_t base = sum.base(j);
    double total = 0.0;
    for (int64_t r = 0; r < sum.count; ++r) {
      const int64_t o = base + sum.offset(r);
      int64_t ia, ib;
      view.offsets(o, ia, ib);
      const float d = wrtB ? binaryDerivB(op, a[ia], b[ib]) : binaryDerivA(op, a[ia], b[ib]);
      total += static_cast<double>(dy[o]) * static_cast<double>(d);
    }
    dx[j] = static_cast<float>(total);
  }
};

}  // namespace body
}  // namespace netsmith::cuda
