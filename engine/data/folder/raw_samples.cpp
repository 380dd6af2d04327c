// RawSamples: fixed-size records at index * sampleBytes (pread/pwrite).
#include "engine/data/folder/raw_samples.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "engine/core/error.h"

namespace fs = std::filesystem;

namespace netsmith {

RawSamples::RawSamples(fs::path path, size_t sampleBytes) : m_path(std::move(path)), m_bytes(sampleBytes) {
  m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  NS_CHECK(m_fd >= 0, "{}: cannot create: {}", m_path.string(), std::strerror(errno));
}

RawSamples::~RawSamples() {
  if (m_fd >= 0) ::close(m_fd);
  std::error_code ec;
  fs::remove(m_path, ec);
}

int64_t RawSamples::append(const uint8_t* data) {
  io(const_cast<uint8_t*>(data), m_count, true);
  return m_count++;
}

void RawSamples::read(int64_t index, uint8_t* data) { io(data, index, false); }

void RawSamples::io(uint8_t* data, int64_t index, bool write) {
  size_t done = 0;
  const off_t at = static_cast<off_t>(index) * static_cast<off_t>(m_bytes);
  while (done < m_bytes) {
    const ssize_t n = write ? ::pwrite(m_fd, data + done, m_bytes - done, at + static_cast<off_t>(done))
                            : ::pread(m_fd, data + done, m_bytes - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    NS_CHECK(n > 0, "{}: cannot {}: {}", m_path.string(), write ? "write" : "read",
             n < 0 ? std::strerror(errno) : "unexpected end of file");
    done += static_cast<size_t>(n);
  }
}

}  // namespace netsmith
