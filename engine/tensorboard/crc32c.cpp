#include "engine/tensorboard/crc32c.h"

#include <array>

namespace netsmith::tensorboard {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // 0x1EDC6F41 bit-reversed
constexpr uint32_t kMaskDelta = 0xA282EAD8u;

// One byte at a time through a 256-entry table: the records are small (an event is tens to a few
// hundred bytes, at most ~20 a second), so a faster slicing or SSE4.2 form would buy nothing.
constexpr std::array<uint32_t, 256> makeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kPolynomial : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kTable = makeTable();

}  // namespace

uint32_t crc32c(std::string_view bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (const char ch : bytes) crc = kTable[(crc ^ static_cast<uint8_t>(ch)) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

uint32_t maskedCrc32c(std::string_view bytes) {
  const uint32_t crc = crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

}  // namespace netsmith::tensorboard
