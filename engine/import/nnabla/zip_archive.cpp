// ZipArchive (zip_archive.h): the end-of-central-directory record found from the end of the file,
// every directory entry bounds-checked before use, members inflated with zlib (windowBits -15:
// raw deflate, as ZIP stores it).
#include "engine/import/nnabla/zip_archive.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"

namespace netsmith::nnabla_import {

namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50, kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;
// Deflate cannot expand data more than about 1032 times; a member that claims more is damaged,
// and the check keeps a forged size from allocating gigabytes.
constexpr uint64_t kMaxDeflateRatio = 1032;
// What a .nnp member really holds: a network's text compresses about 10 times, parameters (float32)
// hardly at all; 64 times leaves room for tensors of zeros. Below 256 MiB no member is stopped.
constexpr uint64_t kMaxMemberRatio = 64;
constexpr uint64_t kMinMemberLimit = uint64_t{256} << 20;

uint16_t u16(const std::string& b, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(b[at]) | static_cast<unsigned char>(b[at + 1]) << 8);
}
uint32_t u32(const std::string& b, size_t at) {
  return static_cast<uint32_t>(u16(b, at)) | static_cast<uint32_t>(u16(b, at + 2)) << 16;
}

}  // namespace

ZipArchive::ZipArchive(const std::string& path) : m_path(path) {
  std::error_code ec;
  NS_CHECK(!std::filesystem::is_directory(path, ec), "{}: is a folder, not a .nnp file", path);
  std::ifstream in(path, std::ios::binary);
  NS_CHECK(in, "{}: cannot open the file", path);
  std::ostringstream all;
  all << in.rdbuf();
  m_bytes = all.str();
  const std::string& b = m_bytes;
  NS_CHECK(b.size() >= 22, "{}: not a ZIP archive (a .nnp file is one): {} bytes is too short", path, b.size());
  // The record is 22 bytes plus a comment of up to 65535.
  size_t eocd = std::string::npos;
  const size_t lowest = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  for (size_t at = b.size() - 22 + 1; at-- > lowest;)
    if (u32(b, at) == kEndOfDirectory && at + 22 + u16(b, at + 20) == b.size()) {
      eocd = at;
      break;
    }
  NS_CHECK(eocd != std::string::npos,
           "{}: not a ZIP archive (a .nnp file is one): no end-of-central-directory record; the file is damaged or cut off",
           path);
  const uint16_t disk = u16(b, eocd + 4), directoryDisk = u16(b, eocd + 6);
  const uint16_t entriesHere = u16(b, eocd + 8), entries = u16(b, eocd + 10);
  const uint32_t directorySize = u32(b, eocd + 12), directoryOffset = u32(b, eocd + 16);
  NS_CHECK(entries != 0xffff && directorySize != 0xffffffffu && directoryOffset != 0xffffffffu,
           "{}: a ZIP64 archive; .nnp files are plain ZIP archives (the file is damaged, or too large)", path);
  NS_CHECK(disk == 0 && directoryDisk == 0 && entriesHere == entries, "{}: a ZIP archive split over several files is not read",
           path);
  NS_CHECK(uint64_t{directoryOffset} + directorySize <= eocd,
           "{}: the ZIP central directory ({} bytes at offset {}) lies past its end record at {}: the file is damaged or cut off",
           path, directorySize, directoryOffset, eocd);
  size_t at = directoryOffset;
  const size_t end = directoryOffset + directorySize;
  for (uint16_t i = 0; i < entries; ++i) {
    NS_CHECK(at + 46 <= end && u32(b, at) == kDirectoryEntry,
             "{}: ZIP central directory entry {} of {} is damaged (no entry signature at offset {})", path, i + 1, entries, at);
    ZipEntry e;
    e.flags = u16(b, at + 8);
    e.method = u16(b, at + 10);
    e.crc = u32(b, at + 16);
    e.compressedSize = u32(b, at + 20);
    e.size = u32(b, at + 24);
    const uint16_t nameLength = u16(b, at + 28), extraLength = u16(b, at + 30), commentLength = u16(b, at + 32);
    e.localHeaderOffset = u32(b, at + 42);
    NS_CHECK(at + 46 + nameLength + extraLength + commentLength <= end,
             "{}: ZIP central directory entry {} of {} runs past the directory: the file is damaged", path, i + 1, entries);
    e.name = b.substr(at + 46, nameLength);
    if (e.size == 0xffffffffu || e.compressedSize == 0xffffffffu || e.localHeaderOffset == 0xffffffffu) {
      // A ZIP64 member: its real size is in the extra field (id 1), the uncompressed size first.
      uint64_t realSize = 0;
      for (size_t x = at + 46 + nameLength; x + 4 <= at + 46 + nameLength + extraLength;) {
        const uint16_t id = u16(b, x), length = u16(b, x + 2);
        if (id == 1 && e.size == 0xffffffffu && length >= 8 && x + 12 <= end)
          realSize = uint64_t{u32(b, x + 4)} | uint64_t{u32(b, x + 8)} << 32;
        x += 4 + length;
      }
      NS_THROW("{}: member '{}' is a ZIP64 member{}: .nnp files hold plain ZIP members of under 4 GiB, and this "
               "version does not read ZIP64",
               path, e.name, realSize ? format(" of {} bytes ({} GiB)", realSize, static_cast<double>(realSize >> 20) / 1024) : std::string(" (4 GiB or more, or its data lies past 4 GiB)"));
    }
    at += 46 + nameLength + extraLength + commentLength;
    m_entries.push_back(std::move(e));
  }
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
  for (const ZipEntry& e : m_entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::string ZipArchive::read(const ZipEntry& e) const {
  const std::string& b = m_bytes;
  const std::string where = format("{}: member '{}'", m_path, e.name);
  NS_CHECK(!(e.flags & 1), "{} is encrypted; encrypted archives are not read", where);
  NS_CHECK(e.method == 0 || e.method == 8, "{} is compressed with ZIP method {}; only stored (0) and deflated (8) members are read",
           where, e.method);
  NS_CHECK(e.localHeaderOffset + 30 <= b.size() && u32(b, e.localHeaderOffset) == kLocalHeader,
           "{}: no local header at offset {}: the file is damaged", where, e.localHeaderOffset);
  const uint64_t data = e.localHeaderOffset + 30 + u16(b, e.localHeaderOffset + 26) + u16(b, e.localHeaderOffset + 28);
  NS_CHECK(u16(b, e.localHeaderOffset + 8) == e.method, "{}: the local header's compression method differs from the directory's: the file is damaged", where);
  NS_CHECK(data + e.compressedSize <= b.size(), "{}: its {} bytes of data run past the end of the file: the file is damaged or cut off",
           where, e.compressedSize);
  if (e.method == 0)
    NS_CHECK(e.size == e.compressedSize, "{}: a stored member of {} bytes claims {} bytes: the file is damaged", where,
             e.compressedSize, e.size);
  else
    NS_CHECK(e.size <= e.compressedSize * kMaxDeflateRatio + 1024,
             "{}: {} compressed bytes cannot inflate to the {} bytes the directory claims: the file is damaged", where,
             e.compressedSize, e.size);
  std::string out;
  if (e.method == 0) {
    out = b.substr(data, e.compressedSize);
  } else {
    // Inflated in steps into what the stream really holds, never into the size the directory
    // claims: a forged size costs nothing, and a stream that inflates far beyond what a .nnp
    // member holds (kMaxMemberRatio) is stopped there, not after taking the machine's memory.
    const uint64_t limit = std::max<uint64_t>(kMinMemberLimit, e.compressedSize * kMaxMemberRatio);
    z_stream z{};
    NS_CHECK(inflateInit2(&z, -15) == Z_OK, "{}: zlib cannot start inflating", where);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(b.data() + data));
    z.avail_in = static_cast<uInt>(e.compressedSize);
    int rc = Z_OK;
    constexpr size_t kStep = size_t{1} << 20;
    while (rc == Z_OK) {
      const size_t have = out.size();
      out.resize(have + kStep);
      z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
      z.avail_out = static_cast<uInt>(kStep);
      rc = inflate(&z, Z_NO_FLUSH);
      out.resize(have + kStep - z.avail_out);
      if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // the data ends early
      if (out.size() > e.size || out.size() > limit) break;
    }
    const uint64_t produced = z.total_out;
    inflateEnd(&z);
    NS_CHECK(produced <= limit,
             "{}: {} compressed bytes inflate to more than {} MiB, more than a .nnp member holds (over {} times its "
             "size): the file is damaged or made to exhaust memory",
             where, e.compressedSize, limit >> 20, kMaxMemberRatio);
    NS_CHECK(produced <= e.size, "{}: inflates to more than the {} bytes the directory claims: the file is damaged", where,
             e.size);
    NS_CHECK(rc == Z_STREAM_END, "{}: the deflate data is damaged (zlib: {})", where,
             rc == Z_DATA_ERROR ? "invalid data" : rc == Z_BUF_ERROR ? "the data ends early" : "error " + std::to_string(rc));
    NS_CHECK(produced == e.size, "{}: inflates to {} bytes but the directory claims {}: the file is damaged", where, produced, e.size);
  }
  const uint32_t crc = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())));
  NS_CHECK(crc == e.crc, "{}: CRC-32 {} does not match the directory's {}: the file is damaged", where, crc, e.crc);
  return out;
}

}  // namespace netsmith::nnabla_import
