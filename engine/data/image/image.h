// Images from files for datasets: an 8-bit image type and decodeImage(), which reads PNG (libpng,
// through engine/data/png_reader.h) and JPEG (libjpeg-turbo) into it. Resizing and channel
// conversion are in engine/data/image/resize.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace netsmith {

// Note [Image layout]: an Image is 8-bit and interleaved: row after row, top row first, each
// pixel's channels side by side ((height, width, channels), "HWC"), as libpng and libjpeg deliver
// rows and as image files store them. Channels are 1 (gray) or 3 (R, G, B); there is no alpha:
// decoding composites it on white. The (channels, height, width) float layout that training uses
// is made when a batch is assembled, not here.
struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;             // 1 or 3
  std::vector<uint8_t> pixels;  // (height, width, channels), size width * height * channels

  Image() = default;
  Image(int width, int height, int channels, uint8_t fill = 0)
      : width(width), height(height), channels(channels),
        pixels(static_cast<size_t>(width) * height * channels, fill) {}

  bool empty() const { return pixels.empty(); }
  size_t index(int x, int y, int c = 0) const { return (static_cast<size_t>(y) * width + x) * channels + c; }
  uint8_t at(int x, int y, int c = 0) const { return pixels[index(x, y, c)]; }
  uint8_t& at(int x, int y, int c = 0) { return pixels[index(x, y, c)]; }
};

enum class ImageFormat { Unknown, Png, Jpeg };

// The format a file's first bytes announce (the 8-byte PNG signature; FF D8 FF for JPEG), whatever
// its name says. Fewer bytes than a signature give Unknown.
ImageFormat detectImageFormat(const unsigned char* head, size_t size);

// What decodeImage found besides the pixels, for reports.
struct ImageDecodeInfo {
  ImageFormat format = ImageFormat::Unknown;
  // The file's own colour model: PNG "gray", "gray+alpha", "RGB", "RGBA", "palette"; JPEG
  // "gray", "YCbCr", "RGB", "CMYK", "YCCK".
  std::string colorType;
  int bitDepth = 8;           // 16 for 16-bit PNGs (scaled to 8 on decoding)
  bool progressive = false;   // JPEG only
  int orientation = 1;        // the EXIF orientation applied (1..8); 1 without a valid Exif tag
  std::string exifProblem;    // why an Exif segment was ignored (bounds, byte order...); empty if none
  int storedWidth = 0;        // the size in the file, before the EXIF orientation turned it
  int storedHeight = 0;
  int scaleDenominator = 1;   // JPEG decoded at 1/2, 1/4 or 1/8 (ImageDecodeOptions); else 1
  int harmlessWarnings = 0;   // libjpeg's "unknown JFIF revision" / "unknown Adobe transform"
};

// What the caller will do with the image, so the decoder can do less.
struct ImageDecodeOptions {
  // When both are > 0, a JPEG may be decoded at 1/2, 1/4 or 1/8 of its size (libjpeg's DCT
  // scaling, Note [JPEG scaled decoding]) as long as the result, as shown (after the EXIF
  // orientation), is still at least minWidth x minHeight. Ask for the dataset's image size: every
  // resize mode then only shrinks from there. PNG is always decoded whole.
  int minWidth = 0;
  int minHeight = 0;
};

// Limits against damaged or hostile files: a header can claim any size.
constexpr uint64_t kMaxImagePixels = uint64_t{1} << 26;      // 67 megapixels (8192 x 8192)
constexpr uint64_t kMaxImageFileBytes = uint64_t{1} << 29;   // 512 MiB

// Decodes the PNG or JPEG file at `path` into `out` (Note [Image layout]); the format is taken
// from the file's first bytes, never from its name.
//  - PNG: 1, 2, 4, 8 and 16 bits; gray, gray+alpha, RGB, RGBA, palette (with or without tRNS).
//    16-bit samples are scaled to 8 (round(v / 257)); alpha, including tRNS transparency, is
//    composited on white. Gray sources give 1 channel, the others 3.
//  - JPEG: baseline and progressive; grayscale gives 1 channel; YCbCr, RGB, CMYK and YCCK give 3
//    (CMYK as Adobe writes it, inverted, when an Adobe marker is present). The EXIF orientation
//    (APP1 "Exif", tag 0x0112, values 1..8) is applied, so `out` is the image as a viewer shows
//    it; an unreadable Exif segment is ignored (orientation 1, the reason in info.exifProblem).
//    libjpeg's corrupt-data warnings are errors: a damaged JPEG is refused, not half-decoded.
// Returns false, `out` unspecified, with a one-line reason naming the file in `error` for any
// problem of the file: "does not exist", "is empty (0 bytes)", "is not an image (PNG or JPEG)",
// "is truncated", "cannot decode PNG '<path>': ...", "cannot decode JPEG '<path>': <libjpeg
// message>", "... pixels, too large". Never aborts, never prints. Safe to call from several
// threads at once (no shared state).
bool decodeImage(const std::string& path, Image& out, std::string& error, ImageDecodeInfo* info = nullptr,
                 const ImageDecodeOptions& options = {});

}  // namespace netsmith
