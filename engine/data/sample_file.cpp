#include "engine/data/sample_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/core/error.h"

namespace netsmith {

SampleFile::SampleFile(std::string path, std::string what, int64_t offset, int64_t sampleBytes, int64_t count)
    : m_path(std::move(path)), m_what(std::move(what)), m_offset(offset), m_sampleBytes(sampleBytes), m_count(count) {
  m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
  NS_CHECK(m_fd >= 0, "cannot open {} '{}': {}", m_what, m_path, std::strerror(errno));
  struct stat st {};
  if (::fstat(m_fd, &st) != 0) {
    const int err = errno;
    ::close(m_fd);
    NS_THROW("cannot read {} '{}': {}", m_what, m_path, std::strerror(err));
  }
  m_fileBytes = static_cast<int64_t>(st.st_size);
  if (m_fileBytes < m_offset + m_sampleBytes * m_count) {
    ::close(m_fd);
    NS_THROW("{} '{}' is truncated: {} samples of {} bytes need {} bytes, the file has {}", m_what, m_path, m_count,
             m_sampleBytes, m_offset + m_sampleBytes * m_count, m_fileBytes);
  }
  // Samples are read in the shuffled order of an epoch: no read-ahead of neighbours.
  ::posix_fadvise(m_fd, 0, 0, POSIX_FADV_RANDOM);
}

SampleFile::~SampleFile() {
  if (m_fd >= 0) ::close(m_fd);
}

void SampleFile::read(int64_t index, uint8_t* out) const {
  NS_CHECK(index >= 0 && index < m_count, "sample {} is out of range: {} '{}' holds {} samples", index, m_what, m_path,
           m_count);
  int64_t done = 0;
  while (done < m_sampleBytes) {
    const ssize_t n = ::pread(m_fd, out + done, static_cast<size_t>(m_sampleBytes - done),
                              static_cast<off_t>(m_offset + index * m_sampleBytes + done));
    if (n < 0 && errno == EINTR) continue;
    NS_CHECK(n >= 0, "cannot read sample {} of {} '{}': {}", index, m_what, m_path, std::strerror(errno));
    NS_CHECK(n > 0, "cannot read sample {} of {} '{}': the file ends early (was it changed or cut short while in use?)",
             index, m_what, m_path);
    done += n;
  }
}

}  // namespace netsmith
