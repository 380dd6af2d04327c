// The packed sample store: a dataset's images as raw 8-bit CHW planes in one file, read by
// training without decoding (Note [Sample store]).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace netsmith {

class AtomicFileWriter;

// Note [Sample store]
// `netsmith-cli dataset create` writes, beside each CSV it makes (DIR/training.csv), the same
// images decoded and resized, packed into DIR/training.nsstore: sample k (the CSV's k-th data
// row) is channels*height*width bytes at offset k*that, CHW planes, then a 64-byte trailer:
//   "NSSTORE1" | u32 version (1) | u32 channels | u32 height | u32 width | u64 count |
//   32 bytes: SHA-256 of the CSV file's bytes                     (little-endian)
// The trailer comes last so the store can be written as a stream (the number of good images is
// known only at the end) and atomically (AtomicFileWriter): a store without a valid trailer was
// never finished. The CSV stays the dataset's definition; the store is a cache of its images.
// A reader uses it only when the CSV is byte for byte the one it was made from (the hash), so a
// CSV edited afterwards (rows removed, labels changed, images replaced by path) falls back to
// decoding the images it names.
constexpr char kSampleStoreMagic[9] = "NSSTORE1";
constexpr int64_t kSampleStoreTrailerBytes = 64;

struct SampleStoreInfo {
  int channels = 0;
  int height = 0;
  int width = 0;
  int64_t count = 0;
  std::string csvSha256;  // hex
  int64_t sampleBytes() const { return static_cast<int64_t>(channels) * height * width; }
};

// DIR/training.csv -> DIR/training.nsstore
std::filesystem::path sampleStorePathFor(const std::filesystem::path& csvPath);

// Reads and checks the trailer of `path`. False with the reason in `error` ("... is not a
// sample store", "... is truncated: ...") when it cannot be used.
bool readSampleStoreInfo(const std::filesystem::path& path, SampleStoreInfo& info, std::string& error);

// Writes a store as a stream of samples; nothing appears at `target` before commit().
class SampleStoreWriter {
 public:
  SampleStoreWriter(std::filesystem::path target, int channels, int height, int width);
  ~SampleStoreWriter();
  SampleStoreWriter(const SampleStoreWriter&) = delete;
  SampleStoreWriter& operator=(const SampleStoreWriter&) = delete;

  // One sample: channels*height*width bytes, CHW planes.
  void append(const uint8_t* chw);
  int64_t count() const { return m_count; }
  // Writes the trailer with the SHA-256 (hex) of the CSV the samples belong to, and puts the
  // file in place atomically. Throws Error naming the file on any write failure.
  void commit(const std::string& csvSha256Hex);

 private:
  std::unique_ptr<AtomicFileWriter> m_file;
  int m_channels, m_height, m_width;
  int64_t m_count = 0;
};

}  // namespace netsmith
