// Note [Row normalization]: LayerNormalization, InstanceNormalization and GroupNormalization are
// one computation on different row shapes. The (N, ...) input is cut into rows of `rowLength`
// consecutive values (a sample's normalized axes; a (sample, channel) plane; a (sample, group)
// run of channel planes); each row is normalized by its own mean and variance (per sample, never
// over the batch, so training and inference compute the same thing), then element i is scaled by
// gamma[p] and shifted by beta[p] with p = (i / paramInner) % paramCount:
//
//   LayerNormalization  rowLength = L (the normalized axes), paramInner 1,     paramCount L
//   InstanceNormalization rowLength = S (the axes after C), paramInner S,     paramCount C
//   GroupNormalization  rowLength = (C / G)·S,               paramInner S,     paramCount C
//
// y = (x − mean)·invStd·gamma + beta with invStd = 1 / sqrt(var + eps), var the biased variance of
// the row (nnabla's F.*_normalization, ONNX's, PyTorch's). The statistics are two passes in double
// (mean, then Σ(x − mean)²), so a large mean against a small spread loses nothing. Backward, with
// x̂ = (x − mean)·invStd and g = dy·gamma (dy without a scale):
//   dx = invStd·(g − mean_row(g) − x̂·mean_row(g·x̂)),   dgamma[p] = Σ dy·x̂,   dbeta[p] = Σ dy,
// the parameter sums taken over every element that uses p, in double and in a fixed order
// (deterministic on both backends; on the GPU Note [Deterministic GPU reductions]'s).
//
// Blobs, in nnabla's order: beta then gamma, each present unless no_bias / no_scale says so.
// The bodies below are host-device: row_normalization_cpu.cpp runs them on the CPU and
// row_normalization.cuh on the GPU.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::ops {

struct RowNormGeometry {
  int64_t rowLength = 1;   // values normalized together
  int64_t paramInner = 1;  // element i uses parameter (i / paramInner) % paramCount
  int64_t paramCount = 1;  // values in gamma and in beta
  bool scale = true;       // gamma present (no_scale false)
  bool bias = true;        // beta present (no_bias false)
  float eps = 1e-5f;

  // Blob positions (beta first, as nnabla), or -1 when absent.
  int betaBlob() const { return bias ? 0 : -1; }
  int gammaBlob() const { return scale ? (bias ? 1 : 0) : -1; }
};

}  // namespace netsmith::ops

namespace netsmith::cuda::rownorm {

NS_HOST_DEVICE inline int64_t paramOf(int64_t i, int64_t paramInner, int64_t paramCount) {
  return (i / paramInner) % paramCount;
}

// The k-th element (of `total`) that parameter p multiplies, k in [0, total / paramCount).
NS_HOST_DEVICE inline int64_t paramElement(int64_t k, int64_t p, int64_t paramInner, int64_t paramCount) {
  const int64_t block = k / paramInner, j = k % paramInner;
  return (block * paramCount + p) * paramInner + j;
}

NS_HOST_DEVICE inline float inverseStd(double sumSquaredDeviations, int64_t rowLength, float eps) {
  return static_cast<float>(1.0 / sqrt(sumSquaredDeviations / static_cast<double>(rowLength) + eps));
}

NS_HOST_DEVICE inline float normalized(float x, float mean, float invStd) { return (x - mean) * invStd; }

// y for element i; gamma / beta null when absent.
struct Normalize {
  int64_t rowLength, paramInner, paramCount;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* mean, const float* invStd,
                                 const float* gamma, const float* beta, float* y) const {
    const int64_t r = i / rowLength, p = paramOf(i, paramInner, paramCount);
    const float xhat = normalized(x[i], mean[r], invStd[r]);
    y[i] = (gamma ? xhat * gamma[p] : xhat) + (beta ? beta[p] : 0.0f);
  }
};

// The row sums of the input gradient for element i: a += g, b += g·x̂ (g = dy·gamma).
NS_HOST_DEVICE inline void addGradientTerms(float x, float dy, float gammaValue, float mean, float invStd, double& a,
                                            double& b) {
  const double g = static_cast<double>(dy) * gammaValue;
  a += g;
  b += g * normalized(x, mean, invStd);
}

// dx for element i from its row's sums (a, b) = (Σ g, Σ g·x̂), stored as rowSums[2r], rowSums[2r + 1].
struct InputGradient {
  int64_t rowLength, paramInner, paramCount;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, const float* mean, const float* invStd,
                                 const float* gamma, const double* rowSums, float* dx) const {
    const int64_t r = i / rowLength, p = paramOf(i, paramInner, paramCount);
    const double n = static_cast<double>(rowLength);
    const double g = static_cast<double>(dy[i]) * (gamma ? gamma[p] : 1.0f);
    const double xhat = normalized(x[i], mean[r], invStd[r]);
    dx[i] = static_cast<float>(invStd[r] * (g - rowSums[2 * r] / n - xhat * rowSums[2 * r + 1] / n));
  }
};

}  // namespace netsmith::cuda::rownorm
