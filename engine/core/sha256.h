// SHA-256 (FIPS 180-4), used for checkpoint checksums and the parameters_sha256 fingerprint.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace netsmith {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t bytes);
  std::array<uint8_t, 32> digest();
  std::string hexDigest();

 private:
  void compress(const uint8_t* block);
  std::array<uint32_t, 8> m_h;
  std::array<uint8_t, 64> m_buffer{};
  size_t m_buffered = 0;
  uint64_t m_totalBytes = 0;
};

std::string sha256Hex(const void* data, size_t bytes);

}  // namespace netsmith
