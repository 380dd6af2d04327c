#include "engine/tensorboard/records.h"

#include <cstdint>

#include "engine/core/error.h"
#include "engine/tensorboard/crc32c.h"

namespace netsmith::tensorboard {
namespace {

template <typename T>
void appendLittleEndian(std::string& out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
}

template <typename T>
T readLittleEndian(std::string_view bytes) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  return value;
}

}  // namespace

std::string frameRecord(std::string_view data) {
  std::string record;
  record.reserve(kRecordHeaderBytes + data.size() + kRecordFooterBytes);
  appendLittleEndian<uint64_t>(record, data.size());
  appendLittleEndian<uint32_t>(record, maskedCrc32c(record));
  record.append(data);
  appendLittleEndian<uint32_t>(record, maskedCrc32c(data));
  return record;
}

std::vector<std::string> readRecords(std::string_view bytes, const std::string& source) {
  std::vector<std::string> records;
  size_t at = 0;
  while (at < bytes.size()) {
    const size_t number = records.size() + 1;
    const std::string_view rest = bytes.substr(at);
    NS_CHECK(rest.size() >= kRecordHeaderBytes,
             "{}: record {} at byte {} is cut short: expected a {}-byte header (length and its checksum), got {} bytes",
             source, number, at, kRecordHeaderBytes, rest.size());
    const uint64_t length = readLittleEndian<uint64_t>(rest);
    const uint32_t lengthCrc = readLittleEndian<uint32_t>(rest.substr(8));
    NS_CHECK(lengthCrc == maskedCrc32c(rest.substr(0, 8)),
             "{}: record {} at byte {}: the checksum of its length does not match (a damaged file, or not a "
             "TensorBoard event file)",
             source, number, at);
    const uint64_t available = rest.size() - kRecordHeaderBytes;
    NS_CHECK(available >= kRecordFooterBytes && length <= available - kRecordFooterBytes,
             "{}: record {} at byte {} is cut short: expected {} bytes of data and a 4-byte checksum, got {} bytes",
             source, number, at, length, available);
    const std::string_view data = rest.substr(kRecordHeaderBytes, static_cast<size_t>(length));
    const uint32_t dataCrc = readLittleEndian<uint32_t>(rest.substr(kRecordHeaderBytes + data.size()));
    NS_CHECK(dataCrc == maskedCrc32c(data), "{}: record {} at byte {}: the checksum of its {} bytes of data does not match",
             source, number, at, length);
    records.emplace_back(data);
    at += kRecordHeaderBytes + data.size() + kRecordFooterBytes;
  }
  return records;
}

}  // namespace netsmith::tensorboard
