// GlobalAveragePooling's GPU steps, host-device so tst_cuda_kernel_bodies runs them on the CPU
// against global_average_pooling/cpu.cpp. Forward is a reduction: one block sums a (sample,
// channel) plane in float, then planeMean finishes it; backward is element-wise.
#pragma once

#include <cstdint>

#include "engine/core/half_floats.h"
#include "engine/core/host_device.h"

namespace netsmith::cuda {

// scale = 1 / (H·W) in float, as the CPU kernel: multiplying by it, not dividing by H·W, keeps the
// two backends' roundings alike.
NS_HOST_DEVICE inline float planeMean(float sum, float scale) { return sum * scale; }

namespace body {

// dx[i] = dy[plane of i] · scale.
struct GlobalAverageSpread {
  int64_t planeSize;
  float scale;
  int64_t channels = 0;  // read only when channelsLast
  bool channelsLast = false;  // dx in NHWC order (Note [Channels last]); dy (N, C, 1, 1) either way
  // F: the activations' format (Note [16-bit activations]).
  template <typename F = Float32Format>
  NS_HOST_DEVICE void spread(int64_t i, const typename F::Bits* dy, typename F::Bits* dx) const {
    const int64_t plane = channelsLast ? (i / (planeSize * channels)) * channels + i % channels : i / planeSize;
    dx[i] = F::store(F::load(dy[plane]) * scale);
  }
  NS_HOST_DEVICE void operator()(int64_t i, const float* dy, float* dx) const { spread<Float32Format>(i, dy, dx); }
};

}  // namespace body
}  // namespace netsmith::cuda
