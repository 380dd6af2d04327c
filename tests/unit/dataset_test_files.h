// Writers of small dataset files (IDX, gzip, PNG, text) for the tst_dataset_* tests.
#pragma once

#include <png.h>
#include <zlib.h>

#include <QtTest>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "engine/project/project.h"

#include "unit/image_test_files.h"

namespace netsmith::testing {

inline void writeBytes(const QString& path, const std::vector<uint8_t>& bytes) {
  QFile f(path);
  QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
}

inline void writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
  f.write(text);
}

inline std::vector<uint8_t> readBytes(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QByteArray all = f.readAll();
  return {all.begin(), all.end()};
}

inline void writeGzip(const QString& path, const std::vector<uint8_t>& bytes) {
  gzFile gz = gzopen(path.toStdString().c_str(), "wb");
  QVERIFY(gz);
  QCOMPARE(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  QCOMPARE(gzclose(gz), Z_OK);
}

// An IDX file: magic 00 00 <type> <ndims>, big-endian dims, then `payload` as is.
inline std::vector<uint8_t> idxBytes(uint8_t type, const std::vector<uint32_t>& dims,
                                     const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    b.push_back(static_cast<uint8_t>(d >> 24));
    b.push_back(static_cast<uint8_t>(d >> 16));
    b.push_back(static_cast<uint8_t>(d >> 8));
    b.push_back(static_cast<uint8_t>(d));
  }
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}

// Writes a PNG with libpng. colorType: PNG_COLOR_TYPE_GRAY, _GRAY_ALPHA, _RGB, _RGBA;
// value(x, y, channel) gives each sample (0..255, or 0..65535 for bitDepth 16).
inline bool writePng(const QString& path, int width, int height, int colorType, int bitDepth,
                     const std::function<int(int, int, int)>& value, bool interlaced = false) {
  PngSpec spec;
  spec.width = width;
  spec.height = height;
  spec.colorType = colorType;
  spec.bitDepth = bitDepth;
  spec.interlaced = interlaced;
  return writePngFile(path, spec, value);  // image_test_files.h: the one PNG writer of the tests
}

inline bool writeGrayPng(const QString& path, int width, int height, int base = 0) {
  return writePng(path, width, height, PNG_COLOR_TYPE_GRAY, 8,
                  [&](int x, int y, int) { return (base + y * width + x) % 256; });
}

// A CSV data source as a project would give it.
inline DataSourceSpec csvSpec(const QString& path) {
  DataSourceSpec s;
  s.format = "csv";
  s.csv = path.toStdString();
  return s;
}

}  // namespace netsmith::testing
