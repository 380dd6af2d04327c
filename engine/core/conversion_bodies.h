// The per-value bodies of DeviceContext::convert and accumulateTensor (Note [16-bit activations],
// Note [Channels last]), host-device: the host's loops (device_context.cpp), the GPU's kernels and
// the simulated GPUs' host loops (engine/backend/cuda/cuda_elementwise.cu) run the same ones.
#pragma once

#include <cstdint>

#include "engine/core/channels_last.h"
#include "engine/core/half_floats.h"
#include "engine/core/host_device.h"

namespace netsmith {

// f(out, in) with the format types of two storages: one dispatch for code between any two.
template <typename F>
decltype(auto) withFormats(Storage out, Storage in, F&& f) {
  return withFormat(out, [&](auto o) { return withFormat(in, [&](auto i) { return f(o, i); }); });
}

namespace body {

// dst[i] = src[map.source(i)] through float32, rounded to Out's format.
template <typename Out, typename In>
struct Convert {
  LayoutMap map;
  NS_HOST_DEVICE void operator()(int64_t i, typename Out::Bits* dst, const typename In::Bits* src) const {
    dst[i] = Out::store(In::load(src[map.source(i)]));
  }
};

// acc[i] += x[map.source(i)], the sum in float32, rounded to Out's format.
template <typename Out, typename In>
struct AccumulateConverted {
  LayoutMap map;
  NS_HOST_DEVICE void operator()(int64_t i, typename Out::Bits* acc, const typename In::Bits* x) const {
    acc[i] = Out::store(Out::load(acc[i]) + In::load(x[map.source(i)]));
  }
};

}  // namespace body
}  // namespace netsmith
