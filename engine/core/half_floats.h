// The two 16-bit float formats a GPU stores activations in (Note [16-bit activations],
// engine/model/network.cpp), as host-device functions on their bits: the GPU's conversion kernels,
// the simulated GPUs and the unit tests run the same code, so a simulated run rounds exactly as a
// real one stores. Both round to nearest, ties to even, as cuDNN and CUDA's __float2half_rn and
// __float2bfloat16_rn do; NaN stays NaN (quiet), ±inf stays ±inf.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith {

// How a tensor stores its values. Float32 everywhere but in the activations (and their gradients)
// of a GPU that computes in half or bfloat16: IEEE binary16 or bfloat16 bits there.
enum class Storage : uint8_t { Float32, Float16, BFloat16 };
constexpr size_t storageBytes(Storage s) { return s == Storage::Float32 ? 4 : 2; }

// The memory order of a (N, C, H, W) tensor, whose shape stays (N, C, H, W) either way:
// channels first (NCHW, everywhere but where Note [Channels last] applies) or channels last (NHWC).
enum class Layout : uint8_t { ChannelsFirst, ChannelsLast };

// How a tensor's values lie in memory: its storage and, for a (N, C, H, W) tensor, its layout.
struct TensorFormat {
  Storage storage = Storage::Float32;
  Layout layout = Layout::ChannelsFirst;
  bool operator==(const TensorFormat&) const = default;
};

NS_HOST_DEVICE inline uint32_t floatBits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  return std::bit_cast<uint32_t>(f);
#endif
}

NS_HOST_DEVICE inline float bitsFloat(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  return std::bit_cast<float>(u);
#endif
}

// bfloat16: float32's sign and 8-bit exponent, 7 mantissa bits — the upper half of a float32.
NS_HOST_DEVICE inline uint16_t floatToBFloat16(float f) {
  const uint32_t u = floatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // NaN, kept quiet
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);  // overflow rounds to inf
}
NS_HOST_DEVICE inline float bfloat16ToFloat(uint16_t h) { return bitsFloat(static_cast<uint32_t>(h) << 16); }

// IEEE binary16: 5-bit exponent (bias 15), 10 mantissa bits; largest finite 65504, smallest
// normal 2^-14, subnormals down to 2^-24.
NS_HOST_DEVICE inline uint16_t floatToHalf(float f) {
  const uint32_t u = floatBits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 (and inf): inf
  if (a < 0x38800000u) {  // below 2^-14: a subnormal half, round(|f| * 2^24)
    const uint32_t e = a >> 23;
    if (e < 102) return static_cast<uint16_t>(sign);  // below 2^-25: zero
    const uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24
    uint32_t q = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (q & 1u))) ++q;  // may carry into the smallest normal
    return static_cast<uint16_t>(sign | q);
  }
  const uint32_t r = a - 0x38000000u;  // exponent rebiased from 127 to 15
  return static_cast<uint16_t>(sign | ((r + 0x0FFFu + ((r >> 13) & 1u)) >> 13));
}
NS_HOST_DEVICE inline float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1Fu;
  uint32_t m = h & 0x3FFu;
  if (e == 0x1F) return bitsFloat(sign | 0x7F800000u | (m << 13));  // inf, NaN
  if (e == 0) {
    if (m == 0) return bitsFloat(sign);
    e = 113;  // subnormal: shift the mantissa up to its leading one
    while (!(m & 0x400u)) {
      m <<= 1;
      --e;
    }
    return bitsFloat(sign | (e << 23) | ((m & 0x3FFu) << 13));
  }
  return bitsFloat(sign | ((e + 112) << 23) | (m << 13));
}

// The element formats as types, for kernels templated on what they read and write: Bits is the
// stored type, load() gives its float value, store() rounds a float into it.
struct Float32Format {
  using Bits = float;
  NS_HOST_DEVICE static float load(float v) { return v; }
  NS_HOST_DEVICE static float store(float v) { return v; }
};
struct Float16Format {
  using Bits = uint16_t;
  NS_HOST_DEVICE static float load(uint16_t v) { return halfToFloat(v); }
  NS_HOST_DEVICE static uint16_t store(float v) { return floatToHalf(v); }
};
struct BFloat16Format {
  using Bits = uint16_t;
  NS_HOST_DEVICE static float load(uint16_t v) { return bfloat16ToFloat(v); }
  NS_HOST_DEVICE static uint16_t store(float v) { return floatToBFloat16(v); }
};

// f(format) with the format type of `s`: one switch for code that handles every storage.
template <typename F>
decltype(auto) withFormat(Storage s, F&& f) {
  switch (s) {
    case Storage::Float16: return f(Float16Format{});
    case Storage::BFloat16: return f(BFloat16Format{});
    case Storage::Float32: break;
  }
  return f(Float32Format{});
}

}  // namespace netsmith
