#include "engine/data/image/exif.h"

#include <cstdint>
#include <cstring>

namespace netsmith {

namespace {

// A bounds-checked reader over the TIFF structure inside the Exif segment. Offsets in TIFF are
// relative to the TIFF header, so `base` points at it; every read checks `offset + width <= size`
// in 64-bit arithmetic, so a 32-bit offset near 2^32 cannot wrap.
struct TiffReader {
  const unsigned char* base;
  size_t size;
  bool bigEndian;

  bool has(uint64_t offset, uint64_t bytes) const { return offset <= size && bytes <= size - offset; }
  uint16_t u16(uint64_t offset) const {
    const unsigned char* p = base + offset;
    return bigEndian ? static_cast<uint16_t>(p[0] << 8 | p[1]) : static_cast<uint16_t>(p[1] << 8 | p[0]);
  }
  uint32_t u32(uint64_t offset) const {
    const unsigned char* p = base + offset;
    return bigEndian ? uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3]
                     : uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | p[0];
  }
};

constexpr uint16_t kOrientationTag = 0x0112;
constexpr uint16_t kTypeShort = 3;
constexpr uint16_t kTypeLong = 4;

}  // namespace

int parseExifOrientation(const unsigned char* segment, size_t size, std::string& problem) {
  problem.clear();
  static constexpr unsigned char kExif[6] = {'E', 'x', 'i', 'f', 0, 0};
  if (!segment || size < sizeof kExif || std::memcmp(segment, kExif, sizeof kExif) != 0) return 0;  // not Exif
  TiffReader t{segment + sizeof kExif, size - sizeof kExif, false};
  if (!t.has(0, 8)) {
    problem = "the Exif segment ends inside its TIFF header";
    return 0;
  }
  if (t.base[0] == 'M' && t.base[1] == 'M') {
    t.bigEndian = true;
  } else if (!(t.base[0] == 'I' && t.base[1] == 'I')) {
    problem = "the Exif segment's byte order is neither II nor MM";
    return 0;
  }
  if (t.u16(2) != 42) {
    problem = "the Exif segment's TIFF header lacks the number 42";
    return 0;
  }
  const uint64_t ifd = t.u32(4);
  if (!t.has(ifd, 2)) {
    problem = "the Exif segment's first directory (offset " + std::to_string(ifd) + ") is past its end (" +
              std::to_string(t.size) + " bytes)";
    return 0;
  }
  const uint64_t entries = t.u16(ifd);
  if (!t.has(ifd + 2, entries * 12)) {
    problem = "the Exif segment's first directory claims " + std::to_string(entries) +
              " entries, more than the segment holds";
    return 0;
  }
  for (uint64_t i = 0; i < entries; ++i) {
    const uint64_t entry = ifd + 2 + i * 12;
    if (t.u16(entry) != kOrientationTag) continue;
    const uint16_t type = t.u16(entry + 2);
    const uint32_t count = t.u32(entry + 4);
    uint32_t value = 0;
    if (type == kTypeShort && count >= 1) {
      value = t.u16(entry + 8);  // a SHORT value sits in the first two bytes of the value field
    } else if (type == kTypeLong && count >= 1) {
      value = t.u32(entry + 8);  // not what the standard says, but seen in the wild
    } else {
      problem = "the Exif orientation tag has type " + std::to_string(type) + " and count " +
                std::to_string(count) + " (expected one SHORT)";
      return 0;
    }
    if (value < 1 || value > 8) {
      problem = "the Exif orientation is " + std::to_string(value) + ", outside 1..8";
      return 0;
    }
    return static_cast<int>(value);
  }
  return 0;
}

Image applyExifOrientation(const Image& image, int orientation) {
  if (orientation < 2 || orientation > 8) return image;
  const int w = image.width;
  const int h = image.height;
  const bool swap = orientation >= 5;
  Image out(swap ? h : w, swap ? w : h, image.channels);
  const int c = image.channels;
  // For each displayed pixel (x, y), the stored pixel that a viewer puts there.
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      int sx = x;
      int sy = y;
      switch (orientation) {
        case 2: sx = w - 1 - x; break;                   // mirrored left-right
        case 3: sx = w - 1 - x; sy = h - 1 - y; break;   // turned 180 degrees
        case 4: sy = h - 1 - y; break;                   // mirrored top-bottom
        case 5: sx = y; sy = x; break;                   // transposed
        case 6: sx = y; sy = h - 1 - x; break;           // stored turned 90 degrees anticlockwise: turn clockwise
        case 7: sx = w - 1 - y; sy = h - 1 - x; break;   // transversed
        case 8: sx = w - 1 - y; sy = x; break;           // stored turned 90 degrees clockwise: turn anticlockwise
        default: break;
      }
      std::memcpy(&out.pixels[out.index(x, y)], &image.pixels[image.index(sx, sy)], static_cast<size_t>(c));
    }
  return out;
}

}  // namespace netsmith
