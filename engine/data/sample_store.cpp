#include "engine/data/sample_store.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/hex.h"

namespace netsmith {

namespace fs = std::filesystem;

namespace {

void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

fs::path sampleStorePathFor(const fs::path& csvPath) {
  fs::path p = csvPath;
  return p.replace_extension(".nsstore");
}

bool readSampleStoreInfo(const fs::path& path, SampleStoreInfo& info, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = format("cannot open sample store '{}': {}", path.string(), std::strerror(errno));
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < kSampleStoreTrailerBytes) {
    error = format("'{}' is not a sample store: {} bytes, shorter than its {}-byte trailer", path.string(),
                   static_cast<int64_t>(size), kSampleStoreTrailerBytes);
    return false;
  }
  uint8_t t[kSampleStoreTrailerBytes];
  if (::pread(fd, t, sizeof t, size - kSampleStoreTrailerBytes) != static_cast<ssize_t>(sizeof t)) {
    error = format("cannot read sample store '{}': {}", path.string(), std::strerror(errno));
    return false;
  }
  if (std::memcmp(t, kSampleStoreMagic, 8) != 0) {
    error = format("'{}' is not a sample store (no NSSTORE1 trailer): was it written to the end?", path.string());
    return false;
  }
  if (get32(t + 8) != 1) {
    error = format("sample store '{}' has version {}, this Netsmith reads version 1", path.string(), get32(t + 8));
    return false;
  }
  info.channels = static_cast<int>(get32(t + 12));
  info.height = static_cast<int>(get32(t + 16));
  info.width = static_cast<int>(get32(t + 20));
  info.count = static_cast<int64_t>(get64(t + 24));
  info.csvSha256 = bytesToHex(t + 32, 32);
  const bool shapeOk = (info.channels == 1 || info.channels == 3) && info.height > 0 && info.width > 0 &&
                       info.height <= 65536 && info.width <= 65536 && info.count > 0;
  if (!shapeOk) {
    error = format("sample store '{}' has a damaged trailer: {} samples of {}x{}x{}", path.string(), info.count,
                   info.channels, info.height, info.width);
    return false;
  }
  const int64_t expected = info.count * info.sampleBytes() + kSampleStoreTrailerBytes;
  if (expected / info.count < info.sampleBytes() || expected != static_cast<int64_t>(size)) {
    error = format("sample store '{}' is {} bytes, but its trailer describes {} samples of {}x{}x{} ({} bytes)",
                   path.string(), static_cast<int64_t>(size), info.count, info.channels, info.height, info.width,
                   expected);
    return false;
  }
  return true;
}

SampleStoreWriter::SampleStoreWriter(fs::path target, int channels, int height, int width)
    : m_file(std::make_unique<AtomicFileWriter>(std::move(target), "sample store")),
      m_channels(channels),
      m_height(height),
      m_width(width) {
  NS_CHECK((channels == 1 || channels == 3) && height > 0 && width > 0,
           "sample store {}: samples must be 1 or 3 channels of at least 1x1 pixels, got {}x{}x{}",
           m_file->target().string(), channels, height, width);
}

SampleStoreWriter::~SampleStoreWriter() = default;

void SampleStoreWriter::append(const uint8_t* chw) {
  m_file->write(chw, static_cast<size_t>(m_channels) * m_height * m_width);
  ++m_count;
}

void SampleStoreWriter::commit(const std::string& csvSha256Hex) {
  NS_CHECK(m_count > 0, "sample store {}: no samples were written", m_file->target().string());
  NS_CHECK(csvSha256Hex.size() == 64, "sample store {}: the CSV's SHA-256 must be 64 hex digits",
           m_file->target().string());
  uint8_t t[kSampleStoreTrailerBytes] = {};
  std::memcpy(t, kSampleStoreMagic, 8);
  put32(t + 8, 1);
  put32(t + 12, static_cast<uint32_t>(m_channels));
  put32(t + 16, static_cast<uint32_t>(m_height));
  put32(t + 20, static_cast<uint32_t>(m_width));
  put64(t + 24, static_cast<uint64_t>(m_count));
  for (int i = 0; i < 32; ++i) {
    const int hi = hexDigit(csvSha256Hex[2 * i]), lo = hexDigit(csvSha256Hex[2 * i + 1]);
    NS_CHECK(hi >= 0 && lo >= 0, "sample store {}: the CSV's SHA-256 must be hex digits",
             m_file->target().string());
    t[32 + i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  m_file->write(t, sizeof t);
  m_file->commit();
}

}  // namespace netsmith
