// Writers of PNG and JPEG files, made in the test with libpng and libjpeg-turbo (nothing binary is
// committed), for the tst_image_* tests.
#pragma once

#include <png.h>

#include <QtTest>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <jpeglib.h>

namespace netsmith::testing {

inline bool writeFileBytes(const QString& path, const std::vector<uint8_t>& bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size())) ==
         static_cast<qint64>(bytes.size());
}

inline std::vector<uint8_t> readFileBytes(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QByteArray all = f.readAll();
  return {all.begin(), all.end()};
}

// A PNG's layout beyond its samples.
struct PngSpec {
  int width = 4;
  int height = 4;
  int colorType = PNG_COLOR_TYPE_RGB;
  int bitDepth = 8;
  bool interlaced = false;
  std::vector<png_color> palette;       // PNG_COLOR_TYPE_PALETTE
  std::vector<uint8_t> paletteAlpha;    // tRNS for a palette: alpha of the first entries
  bool transparentColor = false;        // tRNS for gray or RGB: this one value is transparent
  png_color_16 transparent{};
};

// Writes a PNG; value(x, y, channel) gives each sample in the file's bit depth (palette: the index).
inline bool writePngFile(const QString& path, const PngSpec& spec, const std::function<int(int, int, int)>& value) {
  std::FILE* file = std::fopen(path.toStdString().c_str(), "wb");
  if (!file) return false;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  std::vector<uint8_t> data;
  std::vector<png_bytep> rows;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, spec.width, spec.height, spec.bitDepth, spec.colorType,
               spec.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (!spec.palette.empty())
    png_set_PLTE(png, info, spec.palette.data(), static_cast<int>(spec.palette.size()));
  if (!spec.paletteAlpha.empty())
    png_set_tRNS(png, info, spec.paletteAlpha.data(), static_cast<int>(spec.paletteAlpha.size()), nullptr);
  if (spec.transparentColor) {
    png_color_16 t = spec.transparent;
    png_set_tRNS(png, info, nullptr, 0, &t);
  }
  png_write_info(png, info);
  const int channels = png_get_channels(png, info);
  // Samples below 8 bits are packed by libpng from one byte per sample.
  if (spec.bitDepth < 8) png_set_packing(png);
  const int bytesPer = spec.bitDepth == 16 ? 2 : 1;
  const size_t rowBytes = static_cast<size_t>(spec.width) * channels * bytesPer;
  data.resize(rowBytes * spec.height);
  rows.resize(spec.height);
  for (int y = 0; y < spec.height; ++y) {
    rows[y] = data.data() + y * rowBytes;
    for (int x = 0; x < spec.width; ++x)
      for (int c = 0; c < channels; ++c) {
        const int v = value(x, y, c);
        uint8_t* p = rows[y] + (static_cast<size_t>(x) * channels + c) * bytesPer;
        if (bytesPer == 2) {
          p[0] = static_cast<uint8_t>(v >> 8);
          p[1] = static_cast<uint8_t>(v);
        } else {
          p[0] = static_cast<uint8_t>(v);
        }
      }
  }
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return std::fclose(file) == 0;
}

// An APP1 payload "Exif\0\0" + TIFF header + IFD0 with one entry, Orientation = `orientation`.
inline std::vector<uint8_t> exifWithOrientation(int orientation, bool bigEndian) {
  std::vector<uint8_t> b = {'E', 'x', 'i', 'f', 0, 0};
  auto u16 = [&](unsigned v) {
    if (bigEndian) {
      b.push_back(static_cast<uint8_t>(v >> 8));
      b.push_back(static_cast<uint8_t>(v));
    } else {
      b.push_back(static_cast<uint8_t>(v));
      b.push_back(static_cast<uint8_t>(v >> 8));
    }
  };
  auto u32 = [&](uint32_t v) {
    if (bigEndian) {
      u16(v >> 16);
      u16(v & 0xFFFF);
    } else {
      u16(v & 0xFFFF);
      u16(v >> 16);
    }
  };
  b.push_back(bigEndian ? 'M' : 'I');
  b.push_back(bigEndian ? 'M' : 'I');
  u16(42);
  u32(8);       // IFD0 right after the header
  u16(2);       // two entries: an unrelated tag first, so the reader has to walk the directory
  u16(0x010F);  // Make, ASCII, 4 bytes in place: "Ns\0\0"
  u16(2);
  u32(4);
  b.insert(b.end(), {'N', 's', 0, 0});
  u16(0x0112);  // Orientation, SHORT, 1
  u16(3);
  u32(1);
  u16(static_cast<unsigned>(orientation));
  u16(0);       // the rest of the 4-byte value field
  u32(0);       // no next IFD
  return b;
}

struct JpegSpec {
  int width = 16;
  int height = 16;
  int components = 3;                       // 1 gray, 3 RGB, 4 CMYK
  J_COLOR_SPACE fileColorSpace = JCS_UNKNOWN;  // JCS_UNKNOWN: libjpeg's default for the input
  bool progressive = false;
  bool fullChroma = true;                   // 4:4:4 (no chroma subsampling): sharp colour edges
  int quality = 95;
  std::vector<uint8_t> app1;                // an APP1 segment's payload (Exif), if not empty
  std::vector<jpeg_scan_info> scans;        // a progressive scan script of our own, if not empty
  int jfifMajorVersion = 1;                 // written in the JFIF segment (2 makes readers warn)
};

// Encodes a JPEG in memory; value(x, y, component) gives each sample (0..255). Empty on failure.
inline std::vector<uint8_t> encodeJpeg(const JpegSpec& spec, const std::function<int(int, int, int)>& value) {
  struct Err {
    jpeg_error_mgr pub;
    std::jmp_buf jump;
  };
  struct State {
    jpeg_compress_struct cinfo{};
    Err err;
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    std::vector<uint8_t> row;
    ~State() {
      jpeg_destroy_compress(&cinfo);
      std::free(buffer);
    }
  } s;
  s.cinfo.err = jpeg_std_error(&s.err.pub);
  s.err.pub.error_exit = [](j_common_ptr c) { std::longjmp(reinterpret_cast<Err*>(c->err)->jump, 1); };
  s.err.pub.emit_message = [](j_common_ptr, int) {};
  s.row.resize(static_cast<size_t>(spec.width) * spec.components);
  if (setjmp(s.err.jump)) return {};
  jpeg_create_compress(&s.cinfo);
  jpeg_mem_dest(&s.cinfo, &s.buffer, &s.size);
  s.cinfo.image_width = static_cast<JDIMENSION>(spec.width);
  s.cinfo.image_height = static_cast<JDIMENSION>(spec.height);
  s.cinfo.input_components = spec.components;
  s.cinfo.in_color_space = spec.components == 1 ? JCS_GRAYSCALE : spec.components == 3 ? JCS_RGB : JCS_CMYK;
  jpeg_set_defaults(&s.cinfo);
  if (spec.fileColorSpace != JCS_UNKNOWN) jpeg_set_colorspace(&s.cinfo, spec.fileColorSpace);
  jpeg_set_quality(&s.cinfo, spec.quality, TRUE);
  s.cinfo.JFIF_major_version = static_cast<UINT8>(spec.jfifMajorVersion);
  if (spec.fullChroma)
    for (int c = 0; c < s.cinfo.num_components; ++c) {
      s.cinfo.comp_info[c].h_samp_factor = 1;
      s.cinfo.comp_info[c].v_samp_factor = 1;
    }
  if (spec.progressive) jpeg_simple_progression(&s.cinfo);
  if (!spec.scans.empty()) {
    s.cinfo.scan_info = spec.scans.data();
    s.cinfo.num_scans = static_cast<int>(spec.scans.size());
  }
  jpeg_start_compress(&s.cinfo, TRUE);
  if (!spec.app1.empty())
    jpeg_write_marker(&s.cinfo, JPEG_APP0 + 1, spec.app1.data(), static_cast<unsigned>(spec.app1.size()));
  for (int y = 0; y < spec.height; ++y) {
    for (int x = 0; x < spec.width; ++x)
      for (int c = 0; c < spec.components; ++c)
        s.row[static_cast<size_t>(x) * spec.components + c] = static_cast<uint8_t>(value(x, y, c));
    JSAMPROW row = s.row.data();
    jpeg_write_scanlines(&s.cinfo, &row, 1);
  }
  jpeg_finish_compress(&s.cinfo);
  return std::vector<uint8_t>(s.buffer, s.buffer + s.size);
}

inline bool writeJpegFile(const QString& path, const JpegSpec& spec, const std::function<int(int, int, int)>& value) {
  const std::vector<uint8_t> bytes = encodeJpeg(spec, value);
  return !bytes.empty() && writeFileBytes(path, bytes);
}

}  // namespace netsmith::testing
