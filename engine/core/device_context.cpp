#include "engine/core/device_context.h"

#include <algorithm>
#include <cstring>

#include "engine/core/channels_last.h"
#include "engine/core/conversion_bodies.h"
#include "engine/core/error.h"

namespace netsmith {

void DeviceContext::upload(float* dst, const float* src, int64_t n) {
  if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void DeviceContext::download(float* dst, const float* src, int64_t n) {
  if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void DeviceContext::copy(float* dst, const float* src, int64_t n) {
  if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void DeviceContext::fill(float* dst, int64_t n, float value) { std::fill(dst, dst + n, value); }

void DeviceContext::accumulate(float* acc, const float* x, int64_t n) {
#pragma omp parallel for simd if (n > 65536)
  for (int64_t k = 0; k < n; ++k) acc[k] += x[k];
}

void DeviceContext::scale(float* dst, const float* src, int64_t n, float s) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] * s;
}

namespace {
void checkSameSize(const Tensor& a, const Tensor& b, const char* what) {
  NS_CHECK(a.size() == b.size(), "DeviceContext::{} between tensors of {} and {} values", what, a.size(), b.size());
  NS_CHECK(a.layout() == b.layout() || a.rank() == 4, "DeviceContext::{}: channels last needs a (N, C, H, W) tensor, not {}",
           what, shapeToString(a.shape()));
}
}  // namespace

LayoutMap layoutMap(const Tensor& dst, const Tensor& src) {
  if (dst.layout() == src.layout() || dst.rank() != 4) return {};
  return {dst.dim(1), dst.dim(2) * dst.dim(3), dst.layout() == Layout::ChannelsLast, src.layout() == Layout::ChannelsLast};
}

namespace {
}  // namespace

void DeviceContext::convert(Tensor& dst, const Tensor& src) {
  checkSameSize(dst, src, "convert");
  withFormats(dst.storage(), src.storage(), [&](auto out, auto in) {
    using Out = decltype(out);
    using In = decltype(in);
    const body::Convert<Out, In> convert{layoutMap(dst, src)};
    for (int64_t i = 0; i < src.size(); ++i)
      convert(i, static_cast<typename Out::Bits*>(dst.raw()), static_cast<const typename In::Bits*>(src.raw()));
  });
}

void DeviceContext::accumulateTensor(Tensor& acc, const Tensor& x) {
  checkSameSize(acc, x, "accumulateTensor");
  if (acc.format() == x.format() && acc.storage() == Storage::Float32) {
    accumulate(acc.data(), x.data(), acc.size());
    return;
  }
  withFormats(acc.storage(), x.storage(), [&](auto out, auto in) {
    using Out = decltype(out);
    using In = decltype(in);
    const body::AccumulateConverted<Out, In> add{layoutMap(acc, x)};
    for (int64_t i = 0; i < x.size(); ++i)
      add(i, static_cast<typename Out::Bits*>(acc.raw()), static_cast<const typename In::Bits*>(x.raw()));
  });
}

}  // namespace netsmith
