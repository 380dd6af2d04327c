// Samples of 8-bit values read from a file when a batch is assembled (Note [Sample storage]):
// the packed sample store and raw IDX image files.
#pragma once

#include <cstdint>
#include <string>

namespace netsmith {

class SampleFile {
 public:
  // Opens `path`, whose sample k is `sampleBytes` bytes at offset + k*sampleBytes, for `count`
  // samples. Throws Error naming the file (`what` says what it is: "sample store") when it
  // cannot be opened or is shorter than that.
  SampleFile(std::string path, std::string what, int64_t offset, int64_t sampleBytes, int64_t count);
  ~SampleFile();
  SampleFile(const SampleFile&) = delete;
  SampleFile& operator=(const SampleFile&) = delete;

  // Sample `index` into out[0, sampleBytes). Any thread may call it (pread). Throws Error naming
  // the file when the read fails or comes back short (the file was changed or cut meanwhile).
  void read(int64_t index, uint8_t* out) const;

  const std::string& path() const { return m_path; }
  int64_t sampleBytes() const { return m_sampleBytes; }
  int64_t count() const { return m_count; }
  int64_t fileBytes() const { return m_fileBytes; }

 private:
  std::string m_path;
  std::string m_what;
  int m_fd = -1;
  int64_t m_offset = 0;
  int64_t m_sampleBytes = 0;
  int64_t m_count = 0;
  int64_t m_fileBytes = 0;
};

}  // namespace netsmith
