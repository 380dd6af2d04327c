// decodeImage: format sniffing, the PNG conversion (over engine/data/png_reader.h) and the JPEG
// decoder (libjpeg-turbo) with its EXIF orientation.
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <jpeglib.h>  // after <cstdio>: jpeglib.h needs FILE and size_t declared before it
#include <jerror.h>   // the message codes (JWRN_JPEG_EOF...)

#include "engine/data/image/exif.h"
#include "engine/data/image/image.h"
#include "engine/data/png_reader.h"

namespace netsmith {

namespace {

constexpr unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
constexpr unsigned char kJpegSignature[3] = {0xFF, 0xD8, 0xFF};

bool startsWith(const unsigned char* head, size_t size, const char* magic, size_t at = 0) {
  const size_t n = std::strlen(magic);
  return size >= at + n && std::memcmp(head + at, magic, n) == 0;
}

// What a file that is neither PNG nor JPEG looks like, to say what to do with it.
std::string otherFormat(const unsigned char* head, size_t size) {
  if (startsWith(head, size, "GIF87a") || startsWith(head, size, "GIF89a")) return "GIF";
  if (startsWith(head, size, "BM")) return "BMP";
  if (startsWith(head, size, "RIFF") && startsWith(head, size, "WEBP", 8)) return "WebP";
  if (startsWith(head, size, "II*") || startsWith(head, size, "MM")) {
    if (size >= 4 && ((head[0] == 'I' && head[2] == 42 && head[3] == 0) || (head[0] == 'M' && head[2] == 0 && head[3] == 42)))
      return "TIFF";
  }
  if (startsWith(head, size, "ftyp", 4) &&
      (startsWith(head, size, "heic", 8) || startsWith(head, size, "heix", 8) || startsWith(head, size, "mif1", 8)))
    return "HEIF";
  if (startsWith(head, size, "ftyp", 4) && startsWith(head, size, "avif", 8)) return "AVIF";
  return "";
}

// ---------------------------------------------------------------------------------------------
// PNG: the samples of readPngSamples, to 8 bits, alpha composited on white.

void pngToImage(const PngSamples& s, Image& out) {
  const bool alpha = s.channels == 2 || s.channels == 4;
  const int colors = alpha ? s.channels - 1 : s.channels;
  out = Image(s.width, s.height, colors);
  const size_t pixels = static_cast<size_t>(s.width) * s.height;
  if (s.bitDepth == 8 && !alpha) {
    std::memcpy(out.pixels.data(), s.data.data(), pixels * colors);
    return;
  }
  if (s.bitDepth == 8) {
    for (size_t i = 0; i < pixels; ++i) {
      const unsigned char* p = s.data.data() + i * s.channels;
      const unsigned a = p[colors];
      for (int c = 0; c < colors; ++c)  // c * a / 255 + 255 * (1 - a / 255), rounded
        out.pixels[i * colors + c] = static_cast<uint8_t>((p[c] * a + 255u * (255u - a) + 127u) / 255u);
    }
    return;
  }
  // 16-bit: composite at 16 bits, then scale to 8 (65535 / 257 = 255), rounding once.
  constexpr double kMax = 65535.0;
  for (size_t i = 0; i < pixels; ++i) {
    const unsigned char* p = s.data.data() + i * s.channels * 2;
    const double a = alpha ? ((p[2 * colors] << 8) | p[2 * colors + 1]) / kMax : 1.0;
    for (int c = 0; c < colors; ++c) {
      const double v = ((p[2 * c] << 8) | p[2 * c + 1]) * a + kMax * (1.0 - a);
      out.pixels[i * colors + c] = static_cast<uint8_t>(std::lround(v / 257.0));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// JPEG

// Note [libjpeg errors]: libjpeg's error_exit must not return; ours longjmps back to the setjmp in
// readJpeg(), like Note [libpng errors]: that frame holds no object with a destructor and writes
// only into the caller's JpegRead, so the jump skips nothing. Warnings come to emit_message with
// level -1: the corrupt-data ones ("Corrupt JPEG data: ...", "Premature end of JPEG file") jump
// too, so a damaged file is refused instead of decoded with grey blocks; the two about unknown
// JFIF or Adobe versions are harmless and only counted. Trace messages (level >= 0) are dropped.
// Nothing is ever printed.
struct JpegErrorState {
  jpeg_error_mgr pub;  // first: libjpeg sees a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = "unknown libjpeg error";
  int code = 0;
  int harmlessWarnings = 0;
};

[[noreturn]] void onJpegError(j_common_ptr cinfo) {
  auto* state = reinterpret_cast<JpegErrorState*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, state->message);
  state->code = cinfo->err->msg_code;
  std::longjmp(state->jump, 1);
}

void onJpegMessage(j_common_ptr cinfo, int level) {
  if (level >= 0) return;
  auto* state = reinterpret_cast<JpegErrorState*>(cinfo->err);
  const int code = cinfo->err->msg_code;
  if (code == JWRN_ADOBE_XFORM || code == JWRN_JFIF_MAJOR) {
    ++state->harmlessWarnings;
    return;
  }
  (*cinfo->err->format_message)(cinfo, state->message);
  state->code = code;
  std::longjmp(state->jump, 1);
}

// A progressive JPEG can hold any number of scans, and each one makes libjpeg revisit the whole
// image: a damaged or hostile file with tens of thousands of tiny scans decodes for minutes.
// Encoders write about 10 (libjpeg's default script) and rarely more than a hundred.
constexpr int kMaxJpegScans = 500;

void onJpegProgress(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (!cinfo->is_decompressor || d->input_scan_number <= kMaxJpegScans) return;
  auto* state = reinterpret_cast<JpegErrorState*>(cinfo->err);
  std::snprintf(state->message, sizeof state->message,
                "it has more than %d progressive scans (a damaged file, or one made to be slow to decode)",
                kMaxJpegScans);
  state->code = -1;
  std::longjmp(state->jump, 1);
}

// libjpeg's own allocations (a progressive image keeps every coefficient: 2 bytes per sample) are
// capped: past this, libjpeg asks for a backing store, which this build lacks, and fails cleanly.
constexpr long kJpegMemoryLimit = 1L << 30;

struct JpegRead {
  jpeg_decompress_struct cinfo{};
  JpegErrorState err;
  bool created = false;
  const unsigned char* data = nullptr;
  size_t size = 0;
  // results
  unsigned width = 0;
  unsigned height = 0;
  int components = 0;
  J_COLOR_SPACE colorSpace = JCS_UNKNOWN;
  bool progressive = false;
  bool adobe = false;
  bool tooLarge = false;
  int minWidth = 0;                   // ImageDecodeOptions, as shown (after the orientation)
  int minHeight = 0;
  unsigned storedWidth = 0;           // the size in the file
  unsigned storedHeight = 0;
  int orientation = 0;                // parseExifOrientation's answer
  std::string exifProblem;
  int scaleDenominator = 1;
  std::vector<unsigned char> exif;    // the first APP1 "Exif" payload
  std::vector<unsigned char> pixels;  // (height, width, components) as libjpeg outputs them
  jpeg_progress_mgr progress{};

  ~JpegRead() {
    if (created) jpeg_destroy_decompress(&cinfo);
  }
};

// See Note [libjpeg errors]: no local with a destructor in this function.
bool readJpeg(JpegRead& r) {
  r.cinfo.err = jpeg_std_error(&r.err.pub);
  r.err.pub.error_exit = onJpegError;
  r.err.pub.emit_message = onJpegMessage;
  if (setjmp(r.err.jump)) return false;
  jpeg_create_decompress(&r.cinfo);
  r.created = true;
  r.progress.progress_monitor = onJpegProgress;
  r.cinfo.progress = &r.progress;
  r.cinfo.mem->max_memory_to_use = kJpegMemoryLimit;
  jpeg_mem_src(&r.cinfo, r.data, static_cast<unsigned long>(r.size));
  jpeg_save_markers(&r.cinfo, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&r.cinfo, TRUE);
  r.width = r.storedWidth = r.cinfo.image_width;
  r.height = r.storedHeight = r.cinfo.image_height;
  r.colorSpace = r.cinfo.jpeg_color_space;
  r.progressive = r.cinfo.progressive_mode;
  r.adobe = r.cinfo.saw_Adobe_marker;
  if (uint64_t{r.width} * r.height > kMaxImagePixels) {
    r.tooLarge = true;
    return false;
  }
  for (jpeg_saved_marker_ptr m = r.cinfo.marker_list; m; m = m->next)
    if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0) {
      r.exif.assign(m->data, m->data + m->data_length);
      r.orientation = parseExifOrientation(r.exif.data(), r.exif.size(), r.exifProblem);  // returns before any jump
      break;
    }
  // Note [JPEG scaled decoding]: libjpeg can decode at 1/2, 1/4 or 1/8 of the size directly from
  // the DCT coefficients (each output pixel the mean of its block, in effect), several times
  // faster than a full decode on a photo bound for 64 x 64. The largest reduction is taken that
  // keeps both shown sides at least the size asked for, so the resize after it still only
  // shrinks (or keeps) and the area filter still decides the final pixels.
  if (r.minWidth > 0 && r.minHeight > 0) {
    const bool swapped = r.orientation >= 5;
    const unsigned needW = static_cast<unsigned>(swapped ? r.minHeight : r.minWidth);
    const unsigned needH = static_cast<unsigned>(swapped ? r.minWidth : r.minHeight);
    for (int d : {8, 4, 2}) {
      const unsigned w = (r.storedWidth + d - 1) / d;  // libjpeg rounds scaled sizes up
      const unsigned h = (r.storedHeight + d - 1) / d;
      if (w >= needW && h >= needH) {
        r.cinfo.scale_num = 1;
        r.cinfo.scale_denom = static_cast<unsigned>(d);
        r.scaleDenominator = d;
        break;
      }
    }
  }
  switch (r.cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: r.cinfo.out_color_space = JCS_GRAYSCALE; break;
    case JCS_CMYK:
    case JCS_YCCK: r.cinfo.out_color_space = JCS_CMYK; break;
    default: r.cinfo.out_color_space = JCS_RGB; break;
  }
  jpeg_start_decompress(&r.cinfo);
  r.components = r.cinfo.output_components;
  r.width = r.cinfo.output_width;
  r.height = r.cinfo.output_height;
  const size_t stride = size_t{r.width} * r.components;
  r.pixels.resize(stride * r.height);
  while (r.cinfo.output_scanline < r.cinfo.output_height) {
    JSAMPROW row = r.pixels.data() + stride * r.cinfo.output_scanline;
    if (jpeg_read_scanlines(&r.cinfo, &row, 1) != 1) break;  // cannot happen with a memory source
  }
  // Reads up to the end-of-image marker: a file cut after its last scanline is still refused.
  jpeg_finish_decompress(&r.cinfo);
  return true;
}

const char* jpegColorName(J_COLOR_SPACE space) {
  switch (space) {
    case JCS_GRAYSCALE: return "gray";
    case JCS_YCbCr: return "YCbCr";
    case JCS_RGB: return "RGB";
    case JCS_CMYK: return "CMYK";
    case JCS_YCCK: return "YCCK";
    default: return "of an unknown colour space";
  }
}

bool decodeJpeg(const std::string& path, const std::vector<unsigned char>& bytes, Image& out, std::string& error,
                ImageDecodeInfo& info, const ImageDecodeOptions& options) {
  JpegRead r;
  r.data = bytes.data();
  r.size = bytes.size();
  r.minWidth = options.minWidth;
  r.minHeight = options.minHeight;
  const bool ok = readJpeg(r);
  info.colorType = jpegColorName(r.colorSpace);
  info.progressive = r.progressive;
  info.storedWidth = static_cast<int>(r.storedWidth);
  info.storedHeight = static_cast<int>(r.storedHeight);
  info.scaleDenominator = r.scaleDenominator;
  info.exifProblem = r.exifProblem;
  info.harmlessWarnings = r.err.harmlessWarnings;
  if (!ok) {
    if (r.tooLarge)
      error = "image '" + path + "' is " + std::to_string(r.width) + "x" + std::to_string(r.height) +
              " pixels, too large for a dataset image";
    else if (r.err.code == JWRN_JPEG_EOF || r.err.code == JERR_INPUT_EMPTY)
      error = "image file '" + path + "' is truncated: its JPEG data ends after " + std::to_string(bytes.size()) +
              " bytes, before the image does (was it copied or downloaded completely?) (libjpeg: " + r.err.message +
              ")";
    else
      error = "cannot decode JPEG '" + path + "': " + r.err.message;
    return false;
  }
  if (r.components == 1 || r.components == 3) {
    out.width = static_cast<int>(r.width);
    out.height = static_cast<int>(r.height);
    out.channels = r.components;
    out.pixels = std::move(r.pixels);
  } else if (r.components == 4) {
    // CMYK to RGB without a colour profile. Adobe applications write CMYK inverted (0 = full ink)
    // and mark the file with an Adobe segment; others write 255 = full ink.
    out = Image(static_cast<int>(r.width), static_cast<int>(r.height), 3);
    const size_t n = size_t{r.width} * r.height;
    for (size_t i = 0; i < n; ++i) {
      const unsigned char* p = r.pixels.data() + 4 * i;
      const unsigned k = r.adobe ? p[3] : 255u - p[3];
      for (int c = 0; c < 3; ++c) {
        const unsigned v = r.adobe ? p[c] : 255u - p[c];
        out.pixels[3 * i + c] = static_cast<uint8_t>((v * k + 127u) / 255u);
      }
    }
  } else {
    error = "cannot decode JPEG '" + path + "': it has " + std::to_string(r.components) +
            " colour components (1, 3 or 4 are read)";
    return false;
  }
  if (r.orientation > 1) {
    out = applyExifOrientation(out, r.orientation);
    info.orientation = r.orientation;
  }
  return true;
}

struct FileCloser {
  std::FILE* file;
  ~FileCloser() {
    if (file) std::fclose(file);
  }
};

}  // namespace

ImageFormat detectImageFormat(const unsigned char* head, size_t size) {
  if (size >= sizeof kPngSignature && std::memcmp(head, kPngSignature, sizeof kPngSignature) == 0)
    return ImageFormat::Png;
  if (size >= sizeof kJpegSignature && std::memcmp(head, kJpegSignature, sizeof kJpegSignature) == 0)
    return ImageFormat::Jpeg;
  return ImageFormat::Unknown;
}

bool decodeImage(const std::string& path, Image& out, std::string& error, ImageDecodeInfo* infoOut,
                 const ImageDecodeOptions& options) {
  ImageDecodeInfo scratch;
  ImageDecodeInfo& info = infoOut ? *infoOut : scratch;
  info = ImageDecodeInfo{};
  FileCloser f{std::fopen(path.c_str(), "rb")};
  if (!f.file) {
    error = errno == ENOENT ? "image file '" + path + "' does not exist"
                            : "cannot open image file '" + path + "': " + std::strerror(errno);
    return false;
  }
  unsigned char head[16] = {};
  const size_t got = std::fread(head, 1, sizeof head, f.file);
  if (std::ferror(f.file)) {  // a folder, an I/O error
    error = "cannot read image file '" + path + "': " + std::strerror(errno);
    return false;
  }
  if (got == 0) {
    error = "image file '" + path + "' is empty (0 bytes)";
    return false;
  }
  info.format = detectImageFormat(head, got);
  if (info.format == ImageFormat::Unknown) {
    if (got < sizeof kPngSignature && std::memcmp(head, kPngSignature, got) == 0) {
      error = "image file '" + path + "' is truncated: it has " + std::to_string(got) +
              " bytes, less than the 8-byte PNG signature";
      return false;
    }
    if (got < sizeof kJpegSignature && std::memcmp(head, kJpegSignature, got) == 0) {
      error = "image file '" + path + "' is truncated: it has " + std::to_string(got) +
              " bytes, less than the 3-byte JPEG signature";
      return false;
    }
    const std::string other = otherFormat(head, got);
    error = "image file '" + path + "' is not an image (PNG or JPEG)" +
            (other.empty() ? std::string(": its first bytes match neither signature")
                           : ": it is a " + other + " file; convert it to PNG or JPEG");
    return false;
  }

  if (info.format == ImageFormat::Png) {
    std::fclose(f.file);
    f.file = nullptr;
    PngSamples samples;
    if (!readPngSamples(path, samples, error, /*transparencyToAlpha=*/true)) return false;
    info.colorType = samples.colorType;
    info.bitDepth = samples.bitDepth;
    info.storedWidth = samples.width;
    info.storedHeight = samples.height;
    pngToImage(samples, out);
    return true;
  }

  // JPEG: the whole file in memory (libjpeg's memory source), its size checked first.
  if (std::fseek(f.file, 0, SEEK_END) != 0) {
    error = "cannot read image file '" + path + "': " + std::strerror(errno);
    return false;
  }
  const long size = std::ftell(f.file);
  if (size < 0) {
    error = "cannot read image file '" + path + "': " + std::strerror(errno);
    return false;
  }
  if (static_cast<uint64_t>(size) > kMaxImageFileBytes) {
    error = "image file '" + path + "' is " + std::to_string(size >> 20) + " MiB, too large for a dataset image";
    return false;
  }
  std::vector<unsigned char> bytes(static_cast<size_t>(size));
  std::rewind(f.file);
  const size_t read = std::fread(bytes.data(), 1, bytes.size(), f.file);
  if (read != bytes.size()) {
    error = std::ferror(f.file) ? "cannot read image file '" + path + "': " + std::strerror(errno)
                                : "image file '" + path + "' changed while it was read (it became shorter)";
    return false;
  }
  return decodeJpeg(path, bytes, out, error, info, options);
}

}  // namespace netsmith
