// The scratch file of converted samples (CHW, 8-bit) a dataset build keeps between converting
// the images and packing the sample stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace netsmith {

// The raw samples of the converting pass, in its order, read back by index for the stores: the
// stores want CSV row order (split by split), which is known only once every image is converted,
// and keeping every sample in memory would not fit a large dataset. The file is removed when the
// object dies.
class RawSamples {
 public:
  // Creates (truncates) `path`. Throws Error naming it when it cannot.
  RawSamples(std::filesystem::path path, size_t sampleBytes);
  ~RawSamples();
  RawSamples(const RawSamples&) = delete;
  RawSamples& operator=(const RawSamples&) = delete;

  // Appends one sample of sampleBytes; returns its index.
  int64_t append(const uint8_t* data);
  // Reads sample `index` into data (sampleBytes).
  void read(int64_t index, uint8_t* data);

 private:
  void io(uint8_t* data, int64_t index, bool write);
  std::filesystem::path m_path;
  size_t m_bytes;
  int m_fd = -1;
  int64_t m_count = 0;
};

}  // namespace netsmith
