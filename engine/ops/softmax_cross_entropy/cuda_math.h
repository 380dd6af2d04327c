// SoftmaxCrossEntropy's GPU steps, host-device so tst_cuda_kernel_bodies runs them on the CPU
// against softmax_cross_entropy/cpu.cpp. The kernels reduce a row (one block per sample) to its
// maximum m and Σ expTerm(x, m); logSumExp finishes the row; sampleLoss and gradient are per row
// and per element.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::sce {

// A label is a class index: a whole number in [0, classes).
NS_HOST_DEVICE inline bool validLabel(float label, int64_t classes) {
  return label >= 0.0f && label < static_cast<float>(classes) && label == floorf(label);
}

// exp(x − m) in double with the subtraction in double too, as the CPU kernel (whose maximum is a
// double); the kernel used to subtract in float, rounding the exponent before widening it.
NS_HOST_DEVICE inline double expTerm(float x, float rowMax) { return exp(static_cast<double>(x) - rowMax); }

// log Σ exp(x) = m + log Σ exp(x − m): no exp overflows.
NS_HOST_DEVICE inline double logSumExp(float rowMax, double sumExp) { return rowMax + log(sumExp); }

// The sample's loss, lse − x[label]; NaN for a label that is not a class index (the labels are on
// the device, so the kernel cannot name the row as the CPU kernel does; the trainer stops on NaN).
NS_HOST_DEVICE inline float sampleLoss(const float* row, double lse, float label, int64_t classes) {
  return validLabel(label, classes) ? static_cast<float>(lse - row[static_cast<int64_t>(label)]) : NAN;
}

// The label's class, or −1 when it is not a class index.
NS_HOST_DEVICE inline int64_t targetClass(float label, int64_t classes) {
  return validLabel(label, classes) ? static_cast<int64_t>(label) : -1;
}

// d(loss)/dx[c] = weight·(softmax(x)[c] − [c = target]); NaN for an invalid label.
NS_HOST_DEVICE inline float gradient(float x, double lse, int64_t c, int64_t target, double weight) {
  return target < 0 ? NAN : static_cast<float>(weight * (exp(x - lse) - (c == target ? 1.0 : 0.0)));
}

}  // namespace netsmith::cuda::sce
