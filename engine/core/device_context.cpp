#include "engine/core/device_context.h"

#include <algorithm>
#include <cstring>

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

}  // namespace netsmith
