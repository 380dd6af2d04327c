// The element-wise bodies of the scalar arithmetic layers (AddScalar, MulScalar, PowScalar,
// RSubScalar, RDivScalar: nnabla's names, each with one parameter `val`), run by both backends:
// cpu::BodyEltwiseKernel and cuda::BodyActivationKernel. Backward reads the forward's input.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda::body {

struct AddScalarForward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const { y[i] = x[i] + val; }
};
struct AddScalarBackward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float*, const float* dy, float* dx) const { dx[i] = dy[i]; }
};

struct MulScalarForward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const { y[i] = x[i] * val; }
};
struct MulScalarBackward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float*, const float* dy, float* dx) const { dx[i] = dy[i] * val; }
};

// x^val (powf: NaN for a negative x and a non-integer val, as in nnabla and numpy).
struct PowScalarForward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const { y[i] = powf(x[i], val); }
};
struct PowScalarBackward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    dx[i] = dy[i] * val * powf(x[i], val - 1.0f);
  }
};

struct RSubScalarForward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const { y[i] = val - x[i]; }
};
struct RSubScalarBackward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float*, const float* dy, float* dx) const { dx[i] = -dy[i]; }
};

struct RDivScalarForward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y) const { y[i] = val / x[i]; }
};
struct RDivScalarBackward {
  float val;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, const float* dy, float* dx) const {
    dx[i] = -dy[i] * val / (x[i] * x[i]);
  }
};

}  // namespace netsmith::cuda::body
