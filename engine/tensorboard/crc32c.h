// CRC-32C (Castagnoli), the checksum of TensorBoard's record framing (Note [TFRecord framing],
// records.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace netsmith::tensorboard {

// CRC-32C of `bytes` (reflected polynomial 0x82F63B78, initial and final XOR 0xFFFFFFFF):
// crc32c("123456789") == 0xE3069283.
uint32_t crc32c(std::string_view bytes);

// The masked form a record stores, so that a CRC over data that itself holds CRCs stays strong:
// rotate right by 15 bits, add 0xA282EAD8.
uint32_t maskedCrc32c(std::string_view bytes);

}  // namespace netsmith::tensorboard
