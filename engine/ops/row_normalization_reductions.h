// The sums of Note [Row normalization] as reductions of Note [Deterministic GPU reductions], for
// row_normalization.cuh: per row, the mean, then Σ(x − mean)² (two passes in double, as before),
// and the input gradient's (Σ g, Σ g·x̂); per parameter, (Σ dy, Σ dy·x̂). Each term is the
// arithmetic of row_normalization.h's bodies; only the order of the additions is the reduction's.
#pragma once

#include <cstdint>

#include "engine/host_device/deterministic_reduction.h"
#include "engine/ops/row_normalization.h"

namespace netsmith::cuda::rownorm {

// Row r's values (Rows: a row is contiguous).
struct RowValueTerms {
  using Value = double;
  const float* x;
  int64_t rowLength;
  NS_HOST_DEVICE int64_t prepare(int64_t r) const { return r * rowLength; }
  NS_HOST_DEVICE double operator()(int64_t, int64_t base, int64_t j) const { return x[base + j]; }
};

// The first pass's result: the row mean in double, which the second pass subtracts.
struct RowMeanSink {
  double* rowMean;
  int64_t rowLength;
  NS_HOST_DEVICE void operator()(int64_t r, double sum) const { rowMean[r] = sum / static_cast<double>(rowLength); }
};

// (x − mean)² over row r, in double.
struct RowSquaredDeviationTerms {
  using Value = double;
  const float* x;
  const double* rowMean;
  int64_t rowLength;
  NS_HOST_DEVICE int64_t prepare(int64_t r) const { return r * rowLength; }
  NS_HOST_DEVICE double operator()(int64_t r, int64_t base, int64_t j) const {
    const double d = x[base + j] - rowMean[r];
    return d * d;
  }
};

// The statistics the other kernels read: mean and 1/std of row r, as floats.
struct RowStatisticsSink {
  const double* rowMean;
  int64_t rowLength;
  float eps;
  float *mean, *invStd;
  NS_HOST_DEVICE void operator()(int64_t r, double squares) const {
    mean[r] = static_cast<float>(rowMean[r]);
    invStd[r] = inverseStd(squares, rowLength, eps);
  }
};

// (g, g·x̂) of row r's elements, g = dy·gamma (gamma null: 1), as addGradientTerms adds them.
struct RowGradientTerms {
  using Value = PairSum;
  const float *x, *dy, *gamma, *mean, *invStd;
  int64_t rowLength, paramInner, paramCount;
  NS_HOST_DEVICE int64_t prepare(int64_t r) const { return r * rowLength; }
  NS_HOST_DEVICE PairSum operator()(int64_t r, int64_t base, int64_t j) const {
    const int64_t i = base + j;
    const float gv = gamma ? gamma[paramOf(i, paramInner, paramCount)] : 1.0f;
    PairSum t;
    addGradientTerms(x[i], dy[i], gv, mean[r], invStd[r], t.a, t.b);
    return t;
  }
};

// InputGradient's rowSums[2r], rowSums[2r + 1].
struct RowGradientSink {
  double* rowSums;
  NS_HOST_DEVICE void operator()(int64_t r, const PairSum& s) const {
    rowSums[2 * r] = s.a;
    rowSums[2 * r + 1] = s.b;
  }
};

// (dy, dy·x̂) of the k-th element parameter p multiplies (paramElement's order).
struct ParamGradientTerms {
  using Value = PairSum;
  const float *x, *dy, *mean, *invStd;
  int64_t rowLength, paramInner, paramCount;
  NS_HOST_DEVICE int64_t prepare(int64_t p) const { return p; }
  NS_HOST_DEVICE PairSum operator()(int64_t, int64_t p, int64_t k) const {
    const int64_t i = paramElement(k, p, paramInner, paramCount);
    const int64_t r = i / rowLength;
    return {static_cast<double>(dy[i]), static_cast<double>(dy[i]) * normalized(x[i], mean[r], invStd[r])};
  }
};

// dbeta[p] = Σ dy, dgamma[p] = Σ dy·x̂ (either null when absent).
struct ParamGradientSink {
  float *dbeta, *dgamma;
  NS_HOST_DEVICE void operator()(int64_t p, const PairSum& s) const {
    if (dbeta) dbeta[p] = static_cast<float>(s.a);
    if (dgamma) dgamma[p] = static_cast<float>(s.b);
  }
};

// LayerNormalization's parameters (paramInner 1) are adjacent and each reads one value per row, a
// row apart: Columns. Instance and GroupNormalization's read runs of a plane: Rows.
inline ReduceLayout paramGradientLayout(int64_t paramInner, int64_t paramCount) {
  return paramInner == 1 && paramCount > 1 ? ReduceLayout::Columns : ReduceLayout::Rows;
}

}  // namespace netsmith::cuda::rownorm
