#include "engine/data/png_reader.h"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace netsmith {

namespace {

// Note [libpng errors]: libpng reports a fatal error by calling our handler, which must not
// return. We longjmp back to the setjmp in readPng(). That frame creates no C++ object with a
// destructor, and everything it fills lives in a PngRead owned by the caller, so nothing is
// skipped or left half-destroyed by the jump. Throwing through libpng's C frames instead would be
// undefined behaviour.
struct PngErrorState {
  std::jmp_buf jump;
  char message[200] = "unknown libpng error";
};

void onPngError(png_structp png, png_const_charp message) {
  auto* state = static_cast<PngErrorState*>(png_get_error_ptr(png));
  std::snprintf(state->message, sizeof state->message, "%s", message ? message : "unknown libpng error");
  std::longjmp(state->jump, 1);
}

void onPngWarning(png_structp, png_const_charp) {}  // benign problems (bad ancillary chunk CRC...) are ignored

const char* colorTypeName(int colorType) {
  switch (colorType) {
    case PNG_COLOR_TYPE_GRAY: return "gray";
    case PNG_COLOR_TYPE_GRAY_ALPHA: return "gray+alpha";
    case PNG_COLOR_TYPE_RGB: return "RGB";
    case PNG_COLOR_TYPE_RGB_ALPHA: return "RGBA";
    case PNG_COLOR_TYPE_PALETTE: return "palette";
    default: return "of an unknown colour type";
  }
}

// Why libpng stopped, in words: a file that ends early ("Read Error" is all libpng says of a
// short read) is truncated; anything else is damage inside the file.
std::string decodeFailure(const std::string& path, std::FILE* file, const char* libpngMessage) {
  if (std::feof(file)) {
    std::fseek(file, 0, SEEK_END);
    const long size = std::ftell(file);
    return "cannot decode PNG '" + path + "': the file is truncated: it ends after " + std::to_string(size) +
           " bytes, before its image data does (was it copied or downloaded completely?) (libpng: " + libpngMessage +
           ")";
  }
  if (std::ferror(file))
    return "cannot decode PNG '" + path + "': reading the file failed: " + std::strerror(errno) + " (libpng: " +
           libpngMessage + ")";
  return "cannot decode PNG '" + path + "': the file is damaged (libpng: " + libpngMessage + ")";
}

// Images larger than this are refused rather than allocated: a damaged header can claim anything.
constexpr uint64_t kMaxPixels = uint64_t{1} << 26;

struct PngRead {
  std::FILE* file = nullptr;
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::vector<unsigned char> raw;  // rows as libpng delivers them (interleaved channels)
  std::vector<png_bytep> rows;
  png_uint_32 width = 0;
  png_uint_32 height = 0;
  int channels = 0;
  int bitDepth = 0;
  const char* colorType = "";
  bool tooLarge = false;
  bool transparencyToAlpha = false;

  ~PngRead() {
    if (png) png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    if (file) std::fclose(file);
  }
};

// See Note [libpng errors]: no local with a destructor in this function.
bool readPng(PngRead& r, PngErrorState& err) {
  if (setjmp(err.jump)) return false;
  png_init_io(r.png, r.file);
  png_set_sig_bytes(r.png, 8);
  png_read_info(r.png, r.info);
  r.width = png_get_image_width(r.png, r.info);
  r.height = png_get_image_height(r.png, r.info);
  if (uint64_t{r.width} * r.height > kMaxPixels) {
    r.tooLarge = true;
    return false;
  }
  const int colorType = png_get_color_type(r.png, r.info);
  r.colorType = colorTypeName(colorType);
  if (colorType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r.png);
  if (colorType == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(r.png, r.info) < 8) png_set_expand_gray_1_2_4_to_8(r.png);
  if (r.transparencyToAlpha && png_get_valid(r.png, r.info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(r.png);
  png_set_interlace_handling(r.png);
  png_read_update_info(r.png, r.info);
  r.channels = png_get_channels(r.png, r.info);
  r.bitDepth = png_get_bit_depth(r.png, r.info);
  const size_t rowBytes = png_get_rowbytes(r.png, r.info);
  r.raw.resize(rowBytes * r.height);
  r.rows.resize(r.height);
  for (png_uint_32 y = 0; y < r.height; ++y) r.rows[y] = r.raw.data() + y * rowBytes;
  png_read_image(r.png, r.rows.data());
  // png_read_end is not called: chunks after the image data cannot change the pixels.
  return true;
}

}  // namespace

bool readPngSamples(const std::string& path, PngSamples& out, std::string& error, bool transparencyToAlpha) {
  PngRead r;
  r.transparencyToAlpha = transparencyToAlpha;
  r.file = std::fopen(path.c_str(), "rb");
  if (!r.file) {
    error = errno == ENOENT ? "image file '" + path + "' does not exist"
                            : "cannot open image file '" + path + "': " + std::strerror(errno);
    return false;
  }
  unsigned char signature[8] = {};
  const size_t got = std::fread(signature, 1, 8, r.file);
  if (got == 0 && !std::ferror(r.file)) {
    error = "image file '" + path + "' is empty (0 bytes)";
    return false;
  }
  if (got < 8 && got > 0 && png_sig_cmp(signature, 0, got) == 0) {
    error = "image file '" + path + "' is truncated: it has " + std::to_string(got) +
            " bytes, less than the 8-byte PNG signature";
    return false;
  }
  if (got < 8 || png_sig_cmp(signature, 0, 8) != 0) {
    const bool jpeg = got >= 2 && signature[0] == 0xFF && signature[1] == 0xD8;
    error = "image file '" + path + "' is not a PNG file" +
            (jpeg ? " (it is a JPEG; only PNG images are read: convert it to PNG)" : " (only PNG images are read)");
    return false;
  }
  PngErrorState err;
  r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &err, onPngError, onPngWarning);
  if (r.png) r.info = png_create_info_struct(r.png);
  if (!r.png || !r.info) {
    error = "cannot decode PNG '" + path + "': libpng could not allocate its state";
    return false;
  }
  if (!readPng(r, err)) {
    error = r.tooLarge ? "image '" + path + "' is " + std::to_string(r.width) + "x" + std::to_string(r.height) +
                             " pixels, too large for a dataset image"
                       : decodeFailure(path, r.file, err.message);
    return false;
  }

  out.width = static_cast<int>(r.width);
  out.height = static_cast<int>(r.height);
  out.channels = r.channels;
  out.bitDepth = r.bitDepth;
  out.colorType = r.colorType;
  out.data = std::move(r.raw);
  return true;
}

bool decodePng(const std::string& path, double scale, DecodedImage& out, std::string& error) {
  PngSamples r;
  if (!readPngSamples(path, r, error)) return false;
  const int colors = (r.channels == 2 || r.channels == 4) ? r.channels - 1 : r.channels;  // alpha dropped
  out.channels = colors;
  out.colorType = r.colorType;
  out.height = r.height;
  out.width = r.width;
  const size_t plane = size_t(r.width) * r.height;
  const size_t bytes = r.bitDepth / 8;
  const size_t rowBytes = size_t(r.width) * r.channels * bytes;
  out.pixels.resize(plane * colors);
  if (r.bitDepth == 16) {
    const double k = scale / 257.0;  // 65535 / 257 = 255: the 8-bit range
    for (int y = 0; y < r.height; ++y) {
      const unsigned char* row = r.data.data() + y * rowBytes;
      for (int x = 0; x < r.width; ++x)
        for (int c = 0; c < colors; ++c) {
          const unsigned char* p = row + 2 * (size_t(x) * r.channels + c);
          out.pixels[c * plane + size_t(y) * r.width + x] = static_cast<float>(((p[0] << 8) | p[1]) * k);
        }
    }
  } else {
    float table[256];
    for (int v = 0; v < 256; ++v) table[v] = static_cast<float>(v * scale);
    for (int y = 0; y < r.height; ++y) {
      const unsigned char* row = r.data.data() + y * rowBytes;
      for (int x = 0; x < r.width; ++x)
        for (int c = 0; c < colors; ++c)
          out.pixels[c * plane + size_t(y) * r.width + x] = table[row[size_t(x) * r.channels + c]];
    }
  }
  return true;
}

}  // namespace netsmith
