// A ZIP archive read whole into memory (a .nnp file): its central directory, and each member's
// bytes, inflated with zlib's raw inflate and checked against the directory's size and CRC-32.
// Stored and deflated members only; no ZIP64, no encryption, no archives split over disks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace netsmith::nnabla_import {

struct ZipEntry {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint16_t flags = 0;
  uint32_t crc = 0;
  uint64_t compressedSize = 0;
  uint64_t size = 0;
  uint64_t localHeaderOffset = 0;
};

class ZipArchive {
 public:
  // Reads `path` and its central directory. Error names the file and what is wrong ("not a ZIP
  // archive", "the central directory is cut off", ...).
  explicit ZipArchive(const std::string& path);

  const std::vector<ZipEntry>& entries() const { return m_entries; }
  const ZipEntry* find(const std::string& name) const;
  // The member's bytes. Error names the file and the member: a local header that disagrees with
  // the directory, data past the end of the file, a damaged deflate stream, a size or CRC-32
  // that does not match.
  std::string read(const ZipEntry& entry) const;

 private:
  std::string m_path;
  std::string m_bytes;
  std::vector<ZipEntry> m_entries;
};

}  // namespace netsmith::nnabla_import
