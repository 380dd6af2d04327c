// The index-view reductions (Note [Index views]) in the parallel form of Note [Deterministic GPU
// reductions]: the terms and sinks the CUDA kernels of backend/cuda/index_view_kernels.cuh hand to
// launchReduction (Sum, Mean, Max forward; Max backward; the gradient of a broadcast input; the
// summing backward of a gather), the element-wise SumReduce backward, and the host-side choice of
// layout. Each term is the serial body's (index_view.h) term, the same float and double operations,
// so only the order of the additions differs from the CPU's loops.
#pragma once

#include <cstdint>

#include "engine/host_device/deterministic_reduction.h"
#include "engine/host_device/index_view.h"

namespace netsmith::cuda {

// Offset of reduced element r: offset(r) without its division when one reduced dimension is left.
NS_HOST_DEVICE inline int64_t reducedOffset(const ReduceView& v, int64_t r) {
  return v.redRank == 1 ? r * v.redStride[0] : v.offset(r);
}

// The same view with its size-1 dimensions dropped and, where one dimension's stride is the next
// one's stride times its size, the two merged (the batch, dimension 0 of the kept ones, is left
// alone: withBatchSize sets it). base(o) and offset(r) are unchanged for every o and r; the terms
// need fewer divisions, and reduceLayout sees the real innermost dimensions.
inline ReduceView collapsed(const ReduceView& v) {
  ReduceView c = v;
  const auto squeeze = [](int& rank, int64_t* dims, int64_t* stride, int keep) {
    int n = keep;
    for (int d = keep; d < rank; ++d) {
      if (dims[d] == 1) continue;
      if (n > keep && stride[n - 1] == stride[d] * dims[d]) {
        dims[n - 1] *= dims[d];
        stride[n - 1] = stride[d];
        continue;
      }
      dims[n] = dims[d];
      stride[n] = stride[d];
      ++n;
    }
    rank = n;
  };
  squeeze(c.keptRank, c.keptDims, c.keptStride, 1);
  squeeze(c.redRank, c.redDims, c.redStride, 0);
  return c;
}

// Columns when adjacent outputs of a sample are adjacent in memory and an output's terms are not
// (a sum over an outer axis); Rows otherwise (Note [Deterministic GPU reductions]). The batch is
// not looked at, so the layout, and with it the order of the sums, is the layer's alone.
inline ReduceLayout reduceLayout(const ReduceView& view) {
  const ReduceView v = collapsed(view);
  const bool termsStrided = v.redRank > 0 && v.redStride[v.redRank - 1] != 1;
  const bool outputsAdjacent = v.keptRank > 1 && v.keptStride[v.keptRank - 1] == 1;
  return termsStrided && outputsAdjacent ? ReduceLayout::Columns : ReduceLayout::Rows;
}

namespace body {

// x's reduced elements of output o, in double (SumReduce's terms).
struct ReduceSumTerms {
  using Value = double;
  ReduceView view;
  const float* x;
  NS_HOST_DEVICE int64_t prepare(int64_t o) const { return view.base(o); }
  NS_HOST_DEVICE double operator()(int64_t, int64_t base, int64_t r) const {
    return static_cast<double>(x[base + reducedOffset(view, r)]);
  }
};

// x's reduced elements of output o as arg-max candidates (MaxReduce's).
struct ReduceMaxTerms {
  using Value = ArgMaxAcc;
  ReduceView view;
  const float* x;
  NS_HOST_DEVICE int64_t prepare(int64_t o) const { return view.base(o); }
  NS_HOST_DEVICE ArgMaxAcc operator()(int64_t, int64_t base, int64_t r) const {
    return {x[base + reducedOffset(view, r)], r};
  }
};

// MaxReduce's output: the first largest value.
struct MaxValueSink {
  float* y;
  NS_HOST_DEVICE void operator()(int64_t o, const ArgMaxAcc& best) const { y[o] = best.value; }
};

// MaxReduceBackward with dx zeroed first: dy[o] to o's first largest element.
struct MaxGradientSink {
  ReduceView view;
  const float* dy;
  float* dx;
  NS_HOST_DEVICE void operator()(int64_t o, const ArgMaxAcc& best) const {
    dx[view.base(o) + reducedOffset(view, best.index)] = dy[o];
  }
};

// SumReduceBackward one element at a time: element i = o·count + r of the (output, term) pairs
// gets scale · dy[o]. Consecutive i are consecutive terms of one output.
struct SumReduceSpread {
  ReduceView view;
  float scale;
  NS_HOST_DEVICE void operator()(int64_t i, const float* dy, float* dx) const {
    const int64_t o = i / view.count, r = i % view.count;
    dx[view.base(o) + reducedOffset(view, r)] = dy[o] * scale;
  }
};

// BinaryBackward's terms: dy · ∂y/∂input over the output elements that read input element j.
struct BinaryGradientTerms {
  using Value = double;
  BroadcastView view;
  ReduceView sum;
  BinaryOp op;
  bool wrtB;
  const float *a, *b, *dy;
  NS_HOST_DEVICE int64_t prepare(int64_t j) const { return sum.base(j); }
  NS_HOST_DEVICE double operator()(int64_t, int64_t base, int64_t r) const {
    const int64_t o = base + reducedOffset(sum, r);
    int64_t ia, ib;
    view.offsets(o, ia, ib);
    const float d = wrtB ? binaryDerivB(op, a[ia], b[ib]) : binaryDerivA(op, a[ia], b[ib]);
    return static_cast<double>(dy[o]) * static_cast<double>(d);
  }
};

}  // namespace body
}  // namespace netsmith::cuda
