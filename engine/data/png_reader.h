// PNG decoding for dataset images (libpng), safe on damaged files.
#pragma once

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

}  // namespace netsmith
