#include "engine/data/image/png_writer.h"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

namespace netsmith {

namespace {

struct WriteState {
  std::string message;  // libpng's error text
  std::jmp_buf jump;
};

void onPngWriteError(png_structp png, png_const_charp message) {
  auto* state = static_cast<WriteState*>(png_get_error_ptr(png));
  state->message = message ? message : "unknown libpng error";
  std::longjmp(state->jump, 1);
}

void onPngWriteWarning(png_structp, png_const_charp) {}

// The libpng part, apart so that no object with a destructor lives across setjmp.
bool encode(std::FILE* file, const Image& image, int level, WriteState& state, std::vector<png_bytep>& rows) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, onPngWriteError, onPngWriteWarning);
  if (!png) {
    state.message = "out of memory";
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(state.jump)) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, file);
  png_set_compression_level(png, level);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               image.channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

bool writePngImage(const std::filesystem::path& path, const Image& image, std::string& error, int compressionLevel) {
  const std::string name = path.string();
  if ((image.channels != 1 && image.channels != 3) || image.width < 1 || image.height < 1 ||
      image.pixels.size() != static_cast<size_t>(image.width) * image.height * image.channels) {
    error = "cannot write PNG '" + name + "': the image is " + std::to_string(image.width) + "x" +
            std::to_string(image.height) + " with " + std::to_string(image.channels) +
            " channels (expected 1 or 3 channels and a positive size)";
    return false;
  }
  std::FILE* file = std::fopen(name.c_str(), "wb");
  if (!file) {
    error = "cannot write PNG '" + name + "': " + std::strerror(errno);
    return false;
  }
  std::vector<png_bytep> rows(static_cast<size_t>(image.height));
  const size_t stride = static_cast<size_t>(image.width) * image.channels;
  for (int y = 0; y < image.height; ++y) rows[y] = const_cast<png_bytep>(image.pixels.data() + y * stride);
  WriteState state;
  // libpng writes through stdio: a full disk shows as a failed fwrite (its error), or only at
  // fflush/fclose, so both are checked.
  const bool encoded = encode(file, image, compressionLevel < 0 ? 0 : compressionLevel > 9 ? 9 : compressionLevel, state, rows);
  const int streamError = std::ferror(file) ? errno : 0;
  const bool flushed = std::fflush(file) == 0;
  const int flushError = flushed ? 0 : errno;
  const bool closed = std::fclose(file) == 0;
  const int closeError = closed ? 0 : errno;
  if (encoded && !streamError && flushed && closed) return true;
  const int sysError = streamError ? streamError : flushError ? flushError : closeError;
  std::string why = sysError ? std::strerror(sysError) : state.message;
  if (why.empty()) why = "write failed";
  error = "cannot write PNG '" + name + "': " + why;
  std::remove(name.c_str());
  return false;
}

}  // namespace netsmith
