// Bytes as lowercase hexadecimal text and back: digests, stored hashes, ids handed between processes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace netsmith {

inline std::string bytesToHex(const void* data, size_t bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = static_cast<const uint8_t*>(data);
  std::string s;
  s.reserve(2 * bytes);
  for (size_t i = 0; i < bytes; ++i) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 15];
  }
  return s;
}

// False (and `out` unspecified) unless `hex` is exactly 2 x `bytes` hexadecimal digits.
inline bool hexToBytes(std::string_view hex, void* out, size_t bytes) {
  if (hex.size() != 2 * bytes) return false;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  auto* p = static_cast<uint8_t*>(out);
  for (size_t i = 0; i < bytes; ++i) {
    const int high = digit(hex[2 * i]);
    const int low = digit(hex[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    p[i] = static_cast<uint8_t>(high * 16 + low);
  }
  return true;
}

}  // namespace netsmith
