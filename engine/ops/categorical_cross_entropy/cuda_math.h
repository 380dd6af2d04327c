// CategoricalCrossEntropy's per-sample and per-element bodies, host-device: the CPU kernel
// (cpu.cpp) and the GPU kernel (cuda.cu) both run them; tst_op_gradients checks the values and
// gradients on the CPU.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::cce {

// A label is a class index: a whole number in [0, classes).
NS_HOST_DEVICE inline bool validLabel(float label, int64_t classes) {
  return label >= 0.0f && label < static_cast<float>(classes) && label == floorf(label);
}

// nnabla's guard against log(0): the probability is taken as at least FLT_MIN (the smallest
// normal float, 1.18e-38), so a prediction of 0 for the labelled class gives -log(FLT_MIN) ≈ 87.3
// rather than infinity, and the gradient -1 / max(p, FLT_MIN) stays finite.
NS_HOST_DEVICE inline float guarded(float p) { return p > FLT_MIN ? p : FLT_MIN; }

// The sample's loss, -log x[label]; NaN for a label that is not a class index (on the GPU the
// labels cannot be reported by row before the kernel; the CPU kernel names the row).
NS_HOST_DEVICE inline float sampleLoss(const float* row, float label, int64_t classes) {
  return validLabel(label, classes) ? static_cast<float>(-log(static_cast<double>(guarded(row[static_cast<int64_t>(label)]))))
                                    : NAN;
}

// d(loss)/dx for element i of the (N, classes) input: -weight / max(x, FLT_MIN) at the label, 0
// elsewhere; NaN in a row whose label is not a class index.
struct Gradient {
  int64_t classes;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* t, const float* w, float* dx) const {
    const int64_t n = i / classes, c = i % classes;
    const float label = t[n];
    if (!validLabel(label, classes)) {
      dx[i] = NAN;
      return;
    }
    dx[i] = c == static_cast<int64_t>(label) ? static_cast<float>(-static_cast<double>(w[n]) / guarded(x[i])) : 0.0f;
  }
};

}  // namespace netsmith::cuda::cce
