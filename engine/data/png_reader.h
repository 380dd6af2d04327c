// PNG decoding for dataset images (libpng), safe on damaged files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace netsmith {

struct DecodedImage {
  int channels = 0;  // 1 (gray) or 3 (RGB); alpha is dropped
  // The file's own colour type, for messages: "gray", "gray+alpha", "RGB", "RGBA" or "palette".
  const char* colorType = "";
  int height = 0;
  int width = 0;
  std::vector<float> pixels;  // (channels, height, width), value = pixel (0..255) * scale
};

// Decodes `path` into `out`. Returns false with a one-line reason naming the file in `error`
// ("does not exist", "is empty", "is not a PNG file", "cannot decode PNG: the file is truncated
// ... (libpng: <its message>)", "... is damaged (libpng: ...)") for any problem of the file; never
// aborts on damaged input. 16-bit images are brought to the 8-bit range (value / 257); palette
// images become RGB; bit depths below 8 are expanded. Safe to call from several threads.
bool decodePng(const std::string& path, double scale, DecodedImage& out, std::string& error);

// The samples of a PNG file as libpng delivers them, before any conversion: the one PNG decoder
// that decodePng (dataset CSV images, float, alpha dropped) and decodeImage (engine/data/image/,
// 8-bit, alpha composited on white) both convert from.
struct PngSamples {
  int width = 0;
  int height = 0;
  int channels = 0;  // 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (palette images arrive as RGB or RGBA)
  int bitDepth = 0;  // 8 or 16 (depths below 8 are expanded to 8)
  const char* colorType = "";  // the file's own colour type, as in DecodedImage::colorType
  // (height, width, channels) interleaved; 16-bit samples are big-endian byte pairs.
  std::vector<unsigned char> data;
};

// Reads `path` into `out` with the same checks and messages as decodePng. With
// `transparencyToAlpha`, a tRNS chunk (transparent palette entries, or one transparent gray or RGB
// value) becomes an alpha channel; without it, tRNS is ignored. Safe to call from several threads.
bool readPngSamples(const std::string& path, PngSamples& out, std::string& error, bool transparencyToAlpha = false);

}  // namespace netsmith
