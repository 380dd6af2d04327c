// The EXIF orientation of a JPEG: read from its APP1 "Exif" segment, applied to an Image.
#pragma once

#include <cstddef>
#include <string>

#include "engine/data/image/image.h"

namespace netsmith {

// The orientation tag (0x0112) of IFD0 in `segment`, the payload of an APP1 marker (starting with
// "Exif\0\0", then a TIFF header, "II" or "MM"). Returns 1..8, or 0 when the segment has no usable
// tag; then `problem` says why when the segment is damaged (an offset or count past its end, an
// unknown byte order, a value outside 1..8), and stays empty when the tag is simply absent. Every
// read is bounds-checked against `size`; no input makes it read outside [segment, segment + size).
int parseExifOrientation(const unsigned char* segment, size_t size, std::string& problem);

// `image` as a viewer shows a file whose EXIF orientation is `orientation` (1..8; anything else
// leaves it unchanged). The stored image's row 0 and column 0 go to the sides the EXIF standard
// names: 1 top/left, 2 top/right, 3 bottom/right, 4 bottom/left, 5 left/top, 6 right/top,
// 7 right/bottom, 8 left/bottom. For 5..8 width and height swap.
Image applyExifOrientation(const Image& image, int orientation);

}  // namespace netsmith
