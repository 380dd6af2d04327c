// decodeImage on every kind of PNG and JPEG a photo folder holds, each made here with libpng or
// libjpeg-turbo: PNG gray, gray+alpha, RGB, RGBA, palette (with tRNS), 1..16 bits, interlaced;
// JPEG baseline, progressive, grayscale, CMYK, YCCK, and each EXIF orientation 1..8 checked by
// where the stored image's corners land. Formats are found by content, not by name.
// netsmith-test-labels: asan

#include <QtTest>
#include <cmath>

#include "engine/data/image/exif.h"
#include "engine/data/image/image.h"
#include "engine/data/png_reader.h"
#include "unit/image_test_files.h"

using namespace netsmith;
using namespace netsmith::testing;

namespace {

struct Rgb {
  int r, g, b;
};

QString describe(const Image& image, int x, int y) {
  QString s = QString("(%1,%2) =").arg(x).arg(y);
  for (int c = 0; c < image.channels; ++c) s += " " + QString::number(image.at(x, y, c));
  return s;
}

// The composite of sample c with alpha a on white, at full precision, rounded to 8 bits.
int onWhite(double c, double a, double max) { return static_cast<int>(std::lround((c * a / max + (max - a)) * 255.0 / max)); }

}  // namespace

class TestImageDecode : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  Image decodeOk(const QString& file, ImageDecodeInfo* info = nullptr) {
    Image image;
    std::string error;
    const bool ok = decodeImage(file.toStdString(), image, error, info);
    if (!ok) qWarning("%s", error.c_str());
    [&] { QVERIFY2(ok, error.c_str()); }();
    if (ok) {
      [&] {
        QVERIFY(image.channels == 1 || image.channels == 3);
        QCOMPARE(image.pixels.size(), static_cast<size_t>(image.width) * image.height * image.channels);
      }();
    }
    return image;
  }

  // Every pixel of `image` against expected(x, y, c), exactly or within `tolerance`.
  void compareAll(const Image& image, int width, int height, int channels,
                  const std::function<int(int, int, int)>& expected, int tolerance = 0) {
    QCOMPARE(image.width, width);
    QCOMPARE(image.height, height);
    QCOMPARE(image.channels, channels);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < channels; ++c) {
          const int want = expected(x, y, c);
          const int got = image.at(x, y, c);
          if (std::abs(got - want) > tolerance)
            QFAIL(qPrintable(QString("pixel (%1,%2) channel %3: got %4, expected %5").arg(x).arg(y).arg(c).arg(got).arg(want)));
        }
  }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // ----- PNG --------------------------------------------------------------------------------

  void pngGray_data() {
    QTest::addColumn<int>("bitDepth");
    QTest::addColumn<bool>("interlaced");
    for (int depth : {1, 2, 4, 8, 16}) QTest::newRow(qPrintable(QString("%1-bit").arg(depth))) << depth << false;
    QTest::newRow("8-bit interlaced") << 8 << true;
    QTest::newRow("16-bit interlaced") << 16 << true;
  }
  void pngGray() {
    QFETCH(int, bitDepth);
    QFETCH(bool, interlaced);
    const int max = (1 << bitDepth) - 1;
    PngSpec spec{.width = 13, .height = 7, .colorType = PNG_COLOR_TYPE_GRAY, .bitDepth = bitDepth, .interlaced = interlaced};
    auto value = [&](int x, int y, int) { return (x * 4099 + y * 977) % (max + 1); };
    QVERIFY(writePngFile(path("gray.png"), spec, value));
    ImageDecodeInfo info;
    const Image image = decodeOk(path("gray.png"), &info);
    QCOMPARE(info.format, ImageFormat::Png);
    QCOMPARE(info.colorType, std::string("gray"));
    QCOMPARE(info.bitDepth, bitDepth == 16 ? 16 : 8);
    // Low depths expand by replicating bits (1-bit 1 -> 255, 4-bit 5 -> 85); 16 bits scale by 1/257.
    compareAll(image, 13, 7, 1, [&](int x, int y, int) {
      const int v = value(x, y, 0);
      return bitDepth == 16 ? static_cast<int>(std::lround(v / 257.0)) : v * 255 / max;
    });
  }

  void pngColour_data() {
    QTest::addColumn<int>("colorType");
    QTest::addColumn<int>("bitDepth");
    QTest::addColumn<QString>("name");
    for (int depth : {8, 16}) {
      QTest::newRow(qPrintable(QString("gray+alpha %1").arg(depth))) << PNG_COLOR_TYPE_GRAY_ALPHA << depth << "gray+alpha";
      QTest::newRow(qPrintable(QString("RGB %1").arg(depth))) << PNG_COLOR_TYPE_RGB << depth << "RGB";
      QTest::newRow(qPrintable(QString("RGBA %1").arg(depth))) << PNG_COLOR_TYPE_RGBA << depth << "RGBA";
    }
  }
  // Alpha composited on white: every (colour, alpha) pair against the formula, and the two ends
  // (alpha 0 gives white, full alpha the colour itself).
  void pngColour() {
    QFETCH(int, colorType);
    QFETCH(int, bitDepth);
    QFETCH(QString, name);
    const int max = (1 << bitDepth) - 1;
    const bool alpha = colorType & PNG_COLOR_MASK_ALPHA;
    const int colors = (colorType & PNG_COLOR_MASK_COLOR) ? 3 : 1;
    const int w = 17;
    const int h = 9;
    auto sample = [&](int x, int y, int c) { return ((x + 1) * 7919 * (c + 1) + y * 104729) % (max + 1); };
    auto alphaOf = [&](int x, int y) {
      if (x == 0) return 0;        // fully transparent column
      if (x == 1) return max;      // fully opaque column
      return (x * 65521 + y * 31) % (max + 1);
    };
    PngSpec spec{.width = w, .height = h, .colorType = colorType, .bitDepth = bitDepth};
    QVERIFY(writePngFile(path("c.png"), spec, [&](int x, int y, int c) { return c == colors ? alphaOf(x, y) : sample(x, y, c); }));
    ImageDecodeInfo info;
    const Image image = decodeOk(path("c.png"), &info);
    QCOMPARE(QString::fromStdString(info.colorType), name);
    compareAll(image, w, h, colors, [&](int x, int y, int c) {
      if (!alpha) return static_cast<int>(std::lround(sample(x, y, c) * 255.0 / max));
      return onWhite(sample(x, y, c), alphaOf(x, y), max);
    }, bitDepth == 16 && alpha ? 1 : 0);
    if (alpha)
      for (int y = 0; y < h; ++y)
        for (int c = 0; c < colors; ++c) {
          QCOMPARE(int(image.at(0, y, c)), 255);
          QCOMPARE(int(image.at(1, y, c)), static_cast<int>(std::lround(sample(1, y, c) * 255.0 / max)));
        }
  }

  // Palette images become RGB; tRNS entries make those colours transparent (here on white).
  void pngPalette_data() {
    QTest::addColumn<int>("bitDepth");
    QTest::addColumn<bool>("withTrns");
    for (int depth : {2, 4, 8}) {
      QTest::newRow(qPrintable(QString("%1-bit").arg(depth))) << depth << false;
      QTest::newRow(qPrintable(QString("%1-bit tRNS").arg(depth))) << depth << true;
    }
  }
  void pngPalette() {
    QFETCH(int, bitDepth);
    QFETCH(bool, withTrns);
    const std::vector<png_color> palette = {{200, 10, 20}, {0, 128, 255}, {30, 30, 30}, {255, 255, 0}};
    PngSpec spec{.width = 11, .height = 5, .colorType = PNG_COLOR_TYPE_PALETTE, .bitDepth = bitDepth,
                 .palette = palette};
    if (withTrns) spec.paletteAlpha = {0, 128};  // entry 0 transparent, entry 1 half; 2 and 3 opaque
    auto index = [](int x, int y) { return (x + 2 * y) % 4; };
    QVERIFY(writePngFile(path("p.png"), spec, [&](int x, int y, int) { return index(x, y); }));
    ImageDecodeInfo info;
    const Image image = decodeOk(path("p.png"), &info);
    QCOMPARE(info.colorType, std::string("palette"));
    compareAll(image, 11, 5, 3, [&](int x, int y, int c) {
      const png_color& p = palette[index(x, y)];
      const int v = c == 0 ? p.red : c == 1 ? p.green : p.blue;
      const int a = !withTrns ? 255 : index(x, y) == 0 ? 0 : index(x, y) == 1 ? 128 : 255;
      return onWhite(v, a, 255);
    });
    if (withTrns) {
      QCOMPARE(int(image.at(0, 0, 0)), 255);  // index 0, transparent: white
      QCOMPARE(int(image.at(0, 0, 2)), 255);
    }
  }

  // tRNS on gray and RGB images: the one transparent value becomes white.
  void pngTransparentColour() {
    PngSpec gray{.width = 6, .height = 3, .colorType = PNG_COLOR_TYPE_GRAY, .bitDepth = 8, .transparentColor = true};
    gray.transparent.gray = 40;
    QVERIFY(writePngFile(path("gt.png"), gray, [](int x, int y, int) { return x == y ? 40 : 10 * x + 1; }));
    compareAll(decodeOk(path("gt.png")), 6, 3, 1, [](int x, int y, int) { return x == y ? 255 : 10 * x + 1; });

    PngSpec rgb{.width = 6, .height = 3, .colorType = PNG_COLOR_TYPE_RGB, .bitDepth = 16, .transparentColor = true};
    rgb.transparent.red = 1000;
    rgb.transparent.green = 2000;
    rgb.transparent.blue = 3000;
    auto value = [](int x, int y, int c) { return x == 2 && y == 1 ? (c + 1) * 1000 : (x + 1) * (c + 1) * 3000; };
    QVERIFY(writePngFile(path("rt.png"), rgb, value));
    compareAll(decodeOk(path("rt.png")), 6, 3, 3, [&](int x, int y, int c) {
      return x == 2 && y == 1 ? 255 : static_cast<int>(std::lround(value(x, y, c) / 257.0));
    });
  }

  // decodePng (the CSV reader's float decoder) still drops alpha and ignores tRNS, as before the
  // decoder was shared.
  void csvDecoderUnchanged() {
    PngSpec spec{.width = 3, .height = 2, .colorType = PNG_COLOR_TYPE_RGBA, .bitDepth = 8};
    QVERIFY(writePngFile(path("csv.png"), spec, [](int x, int y, int c) { return c == 3 ? 0 : 10 * x + y + 50 * c; }));
    DecodedImage d;
    std::string error;
    QVERIFY2(decodePng(path("csv.png").toStdString(), 1.0, d, error), error.c_str());
    QCOMPARE(d.channels, 3);
    QCOMPARE(std::string(d.colorType), std::string("RGBA"));
    // (channels, height, width) floats, alpha ignored.
    QCOMPARE(d.pixels[1 * 6 + 1 * 3 + 2], 10.0f * 2 + 1 + 50);
  }

  // ----- JPEG -------------------------------------------------------------------------------

  void jpegKinds_data() {
    QTest::addColumn<int>("components");
    QTest::addColumn<int>("fileSpace");
    QTest::addColumn<bool>("progressive");
    QTest::addColumn<QString>("name");
    QTest::newRow("baseline YCbCr") << 3 << int(JCS_UNKNOWN) << false << "YCbCr";
    QTest::newRow("progressive YCbCr") << 3 << int(JCS_UNKNOWN) << true << "YCbCr";
    QTest::newRow("baseline RGB") << 3 << int(JCS_RGB) << false << "RGB";
    QTest::newRow("baseline gray") << 1 << int(JCS_UNKNOWN) << false << "gray";
    QTest::newRow("progressive gray") << 1 << int(JCS_UNKNOWN) << true << "gray";
    QTest::newRow("CMYK (Adobe)") << 4 << int(JCS_UNKNOWN) << false << "CMYK";
    QTest::newRow("YCCK (Adobe)") << 4 << int(JCS_YCCK) << false << "YCCK";
    QTest::newRow("progressive CMYK") << 4 << int(JCS_UNKNOWN) << true << "CMYK";
  }
  // Four flat quadrants of known colour; the centre of each decodes to within JPEG's error.
  void jpegKinds() {
    QFETCH(int, components);
    QFETCH(int, fileSpace);
    QFETCH(bool, progressive);
    QFETCH(QString, name);
    const Rgb colours[4] = {{220, 30, 40}, {20, 200, 60}, {40, 50, 210}, {250, 250, 250}};
    auto quadrant = [](int x, int y) { return (x >= 24 ? 1 : 0) + (y >= 16 ? 2 : 0); };
    auto rgb = [&](int x, int y, int c) {
      const Rgb& q = colours[quadrant(x, y)];
      return c == 0 ? q.r : c == 1 ? q.g : q.b;
    };
    auto luma = [&](int x, int y) {
      return static_cast<int>(std::lround(0.299 * rgb(x, y, 0) + 0.587 * rgb(x, y, 1) + 0.114 * rgb(x, y, 2)));
    };
    JpegSpec spec{.width = 48, .height = 32, .components = components,
                  .fileColorSpace = static_cast<J_COLOR_SPACE>(fileSpace), .progressive = progressive};
    // CMYK as Adobe writes it (libjpeg adds the Adobe marker): inverted, 255 = no ink. With K = 0
    // ink, C, M, Y are the complements of R, G, B, stored inverted: the RGB values themselves.
    QVERIFY(writeJpegFile(path("k.jpeg"), spec, [&](int x, int y, int c) {
      if (components == 1) return luma(x, y);
      if (components == 4) return c == 3 ? 255 : rgb(x, y, c);
      return rgb(x, y, c);
    }));
    ImageDecodeInfo info;
    const Image image = decodeOk(path("k.jpeg"), &info);
    QCOMPARE(info.format, ImageFormat::Jpeg);
    QCOMPARE(QString::fromStdString(info.colorType), name);
    QCOMPARE(info.progressive, progressive);
    QCOMPARE(info.orientation, 1);
    QCOMPARE(image.width, 48);
    QCOMPARE(image.height, 32);
    QCOMPARE(image.channels, components == 1 ? 1 : 3);
    for (int q = 0; q < 4; ++q) {
      const int x = (q & 1) ? 36 : 12;
      const int y = (q & 2) ? 24 : 8;
      for (int c = 0; c < image.channels; ++c) {
        const int want = image.channels == 1 ? luma(x, y) : rgb(x, y, c);
        QVERIFY2(std::abs(image.at(x, y, c) - want) <= 6,
                 qPrintable(describe(image, x, y) + QString(" channel %1, expected %2").arg(c).arg(want)));
      }
    }
  }

  // Note [EXIF orientation test]: the stored image has four differently coloured quadrants A
  // (top-left), B (top-right), C (bottom-left), D (bottom-right). The EXIF standard says, for each
  // orientation, which side of the shown image the stored row 0 and column 0 are on; A sits where
  // those two sides meet, B on row 0's side opposite column 0's, C on column 0's side opposite
  // row 0's, D opposite both. The expected corners come from that table alone.
  void exifOrientation_data() {
    QTest::addColumn<int>("orientation");
    QTest::addColumn<QString>("row0");  // the side stored row 0 is shown on
    QTest::addColumn<QString>("col0");  // the side stored column 0 is shown on
    QTest::addColumn<bool>("bigEndian");
    const char* sides[9][2] = {{}, {"top", "left"}, {"top", "right"}, {"bottom", "right"}, {"bottom", "left"},
                               {"left", "top"}, {"right", "top"}, {"right", "bottom"}, {"left", "bottom"}};
    for (int o = 1; o <= 8; ++o)
      for (bool big : {false, true})
        QTest::newRow(qPrintable(QString("%1 %2").arg(o).arg(big ? "MM" : "II"))) << o << sides[o][0] << sides[o][1] << big;
  }
  void exifOrientation() {
    QFETCH(int, orientation);
    QFETCH(QString, row0);
    QFETCH(QString, col0);
    QFETCH(bool, bigEndian);
    const int w = 64;  // stored 64 x 32: quadrants 32 x 16
    const int h = 32;
    const Rgb colours[4] = {{230, 20, 20}, {20, 220, 20}, {20, 20, 230}, {240, 240, 240}};  // A B C D
    JpegSpec spec{.width = w, .height = h, .components = 3, .app1 = exifWithOrientation(orientation, bigEndian)};
    QVERIFY(writeJpegFile(path("o.jpg"), spec, [&](int x, int y, int c) {
      const Rgb& q = colours[(x >= w / 2 ? 1 : 0) + (y >= h / 2 ? 2 : 0)];
      return c == 0 ? q.r : c == 1 ? q.g : q.b;
    }));
    ImageDecodeInfo info;
    const Image image = decodeOk(path("o.jpg"), &info);
    QCOMPARE(info.orientation, orientation);
    QVERIFY2(info.exifProblem.empty(), info.exifProblem.c_str());
    QCOMPARE(info.storedWidth, w);
    QCOMPARE(info.storedHeight, h);
    const bool sideways = row0 == "left" || row0 == "right";
    QCOMPARE(image.width, sideways ? h : w);
    QCOMPARE(image.height, sideways ? w : h);

    auto opposite = [](const QString& s) {
      return s == "top" ? QString("bottom") : s == "bottom" ? QString("top") : s == "left" ? QString("right") : QString("left");
    };
    // The centre of the shown quadrant in the corner where two sides meet.
    auto corner = [&](const QString& a, const QString& b) {
      const bool right = a == "right" || b == "right";
      const bool bottom = a == "bottom" || b == "bottom";
      return QPoint(right ? image.width * 3 / 4 : image.width / 4, bottom ? image.height * 3 / 4 : image.height / 4);
    };
    const QPoint where[4] = {corner(row0, col0), corner(row0, opposite(col0)), corner(opposite(row0), col0),
                             corner(opposite(row0), opposite(col0))};
    for (int q = 0; q < 4; ++q) {
      const QPoint p = where[q];
      const int want[3] = {colours[q].r, colours[q].g, colours[q].b};
      for (int c = 0; c < 3; ++c)
        QVERIFY2(std::abs(image.at(p.x(), p.y(), c) - want[c]) <= 8,
                 qPrintable(QString("orientation %1: stored quadrant %2 expected at (%3,%4), found %5")
                                .arg(orientation).arg("ABCD"[q]).arg(p.x()).arg(p.y()).arg(describe(image, p.x(), p.y()))));
    }
  }

  // applyExifOrientation pixel by pixel on a 3 x 2 image whose every pixel is distinct.
  void orientationPixelExact() {
    Image stored(3, 2, 1);
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) stored.at(x, y) = static_cast<uint8_t>(10 * y + x);  // 0 1 2 / 10 11 12
    const std::vector<std::vector<int>> shown = {
        {},
        {0, 1, 2, 10, 11, 12},        // 1: as stored (3 x 2)
        {2, 1, 0, 12, 11, 10},        // 2: mirrored
        {12, 11, 10, 2, 1, 0},        // 3: 180
        {10, 11, 12, 0, 1, 2},        // 4: flipped
        {0, 10, 1, 11, 2, 12},        // 5: transposed (2 x 3)
        {10, 0, 11, 1, 12, 2},        // 6: turned clockwise
        {12, 2, 11, 1, 10, 0},        // 7: transverse
        {2, 12, 1, 11, 0, 10},        // 8: turned anticlockwise
    };
    for (int o = 1; o <= 8; ++o) {
      const Image out = applyExifOrientation(stored, o);
      QCOMPARE(out.width, o >= 5 ? 2 : 3);
      QCOMPARE(out.height, o >= 5 ? 3 : 2);
      const std::vector<int> got(out.pixels.begin(), out.pixels.end());
      QVERIFY2(got == shown[o], qPrintable(QString("orientation %1").arg(o)));
    }
  }

  // A JPEG whose Exif has no orientation tag, or a PNG: orientation 1, no problem reported.
  void noOrientationTag() {
    std::vector<uint8_t> exif = exifWithOrientation(6, false);
    exif[6 + 8 + 2 + 12] = 0x13;  // rename the second entry's tag (0x0112 -> 0x0113): not orientation
    JpegSpec spec{.width = 16, .height = 8, .app1 = exif};
    QVERIFY(writeJpegFile(path("n.jpg"), spec, [](int x, int, int) { return x * 10; }));
    ImageDecodeInfo info;
    const Image image = decodeOk(path("n.jpg"), &info);
    QCOMPARE(info.orientation, 1);
    QVERIFY(info.exifProblem.empty());
    QCOMPARE(image.width, 16);
  }

  // Note [JPEG scaled decoding]: the largest of 1/2, 1/4, 1/8 that keeps the shown image at least
  // the size asked for; the colours stay where they were.
  void scaledJpegDecoding_data() {
    QTest::addColumn<int>("orientation");
    QTest::addColumn<int>("minWidth");
    QTest::addColumn<int>("minHeight");
    QTest::addColumn<int>("denominator");
    QTest::newRow("no options") << 1 << 0 << 0 << 1;
    QTest::newRow("40x20: 1/4") << 1 << 40 << 20 << 4;
    QTest::newRow("32x16: 1/8") << 1 << 32 << 16 << 8;
    QTest::newRow("33x16: 1/4") << 1 << 33 << 16 << 4;
    QTest::newRow("300x10: whole") << 1 << 300 << 10 << 1;
    QTest::newRow("turned, 20x40 shown: 1/4") << 6 << 20 << 40 << 4;
    QTest::newRow("turned, 40x20 shown: 1/2") << 6 << 40 << 20 << 2;
  }
  void scaledJpegDecoding() {
    QFETCH(int, orientation);
    QFETCH(int, minWidth);
    QFETCH(int, minHeight);
    QFETCH(int, denominator);
    const Rgb colours[4] = {{230, 20, 20}, {20, 220, 20}, {20, 20, 230}, {240, 240, 240}};
    JpegSpec spec{.width = 256, .height = 128, .app1 = exifWithOrientation(orientation, false)};
    QVERIFY(writeJpegFile(path("big.jpg"), spec, [&](int x, int y, int c) {
      const Rgb& q = colours[(x >= 128 ? 1 : 0) + (y >= 64 ? 2 : 0)];
      return c == 0 ? q.r : c == 1 ? q.g : q.b;
    }));
    ImageDecodeInfo info;
    Image image;
    std::string error;
    QVERIFY2(decodeImage(path("big.jpg").toStdString(), image, error, &info, ImageDecodeOptions{minWidth, minHeight}),
             error.c_str());
    QCOMPARE(info.scaleDenominator, denominator);
    QCOMPARE(info.storedWidth, 256);
    const bool turned = orientation >= 5;
    QCOMPARE(image.width, (turned ? 128 : 256) / denominator);
    QCOMPARE(image.height, (turned ? 256 : 128) / denominator);
    if (denominator > 1) QVERIFY(image.width >= minWidth && image.height >= minHeight);
    // Stored quadrant A (top-left) is shown top-left, or top-right when turned clockwise (6).
    const int ax = turned ? image.width * 3 / 4 : image.width / 4;
    const int ay = image.height / 4;
    QVERIFY2(std::abs(image.at(ax, ay, 0) - 230) <= 8 && image.at(ax, ay, 1) < 40, qPrintable(describe(image, ax, ay)));
    // PNG ignores the options.
    PngSpec png{.width = 64, .height = 64, .colorType = PNG_COLOR_TYPE_GRAY};
    QVERIFY(writePngFile(path("big.png"), png, [](int x, int, int) { return x; }));
    QVERIFY(decodeImage(path("big.png").toStdString(), image, error, &info, ImageDecodeOptions{8, 8}));
    QCOMPARE(image.width, 64);
    QCOMPARE(info.scaleDenominator, 1);
  }

  // Note [libjpeg errors]: a warning that says nothing about the pixels (an unknown JFIF version)
  // is counted, not fatal; nothing is printed.
  void harmlessWarningCounted() {
    JpegSpec spec{.width = 8, .height = 8, .components = 1, .jfifMajorVersion = 2};
    QVERIFY(writeJpegFile(path("jfif2.jpg"), spec, [](int, int, int) { return 128; }));
    ImageDecodeInfo info;
    const Image image = decodeOk(path("jfif2.jpg"), &info);
    QCOMPARE(info.harmlessWarnings, 1);
    QVERIFY(std::abs(image.at(4, 4) - 128) <= 2);
    JpegSpec plain{.width = 8, .height = 8, .components = 1};
    QVERIFY(writeJpegFile(path("jfif1.jpg"), plain, [](int, int, int) { return 128; }));
    decodeOk(path("jfif1.jpg"), &info);
    QCOMPARE(info.harmlessWarnings, 0);
  }

  // ----- format by content, and the one-line reasons ------------------------------------------

  void formatFromContentNotName() {
    PngSpec spec{.width = 5, .height = 4, .colorType = PNG_COLOR_TYPE_GRAY, .bitDepth = 8};
    QVERIFY(writePngFile(path("really_png.jpg"), spec, [](int x, int y, int) { return x + y; }));
    ImageDecodeInfo info;
    decodeOk(path("really_png.jpg"), &info);
    QCOMPARE(info.format, ImageFormat::Png);
    JpegSpec jspec{.width = 8, .height = 8, .components = 1};
    QVERIFY(writeJpegFile(path("really_jpeg.PNG"), jspec, [](int, int, int) { return 77; }));
    const Image j = decodeOk(path("really_jpeg.PNG"), &info);
    QCOMPARE(info.format, ImageFormat::Jpeg);
    QVERIFY(std::abs(j.at(3, 3) - 77) <= 2);
    QVERIFY(writeFileBytes(path("noext"), readFileBytes(path("really_jpeg.PNG"))));
    decodeOk(path("noext"), &info);
    QCOMPARE(info.format, ImageFormat::Jpeg);
  }

  void reasons_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QStringList>("parts");
    QTest::newRow("empty") << QByteArray() << QStringList{"is empty"};
    QTest::newRow("text") << QByteArray("class,label\n") << QStringList{"is not an image (PNG or JPEG)"};
    QTest::newRow("GIF") << QByteArray("GIF89a\x01\x00\x01\x00", 10) << QStringList{"is not an image (PNG or JPEG)", "GIF"};
    QTest::newRow("BMP") << QByteArray("BM\x36\x00\x00\x00", 6) << QStringList{"not an image", "BMP"};
    QTest::newRow("WebP") << QByteArray("RIFF\x10\x00\x00\x00WEBPVP8 ", 16) << QStringList{"not an image", "WebP"};
    QTest::newRow("PNG signature cut") << QByteArray("\x89PNG\r", 5) << QStringList{"is truncated", "5 bytes"};
    QTest::newRow("JPEG signature cut") << QByteArray("\xFF\xD8", 2) << QStringList{"is truncated", "2 bytes"};
    QTest::newRow("JPEG markers only") << QByteArray("\xFF\xD8\xFF\xD9", 4) << QStringList{"cannot decode JPEG", "JPEG datastream contains no image"};
  }
  void reasons() {
    QFETCH(QByteArray, content);
    QFETCH(QStringList, parts);
    const QString file = path("r.png");
    QVERIFY(writeFileBytes(file, {content.begin(), content.end()}));
    Image image;
    std::string error;
    QVERIFY(!decodeImage(file.toStdString(), image, error));
    const QString message = QString::fromStdString(error);
    QVERIFY2(message.contains(file), qPrintable(message));
    QVERIFY2(!message.contains('\n'), qPrintable(message));
    for (const QString& part : parts) QVERIFY2(message.contains(part), qPrintable(part + " not in: " + message));
  }

  void missingAndFolder() {
    Image image;
    std::string error;
    QVERIFY(!decodeImage(path("nothing.png").toStdString(), image, error));
    QVERIFY2(QString::fromStdString(error).contains("does not exist"), error.c_str());
    QVERIFY(!decodeImage(m_dir.path().toStdString(), image, error));
    QVERIFY2(QString::fromStdString(error).contains(m_dir.path()), error.c_str());
  }

  void detectFormat() {
    const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    const unsigned char jpeg[3] = {0xFF, 0xD8, 0xFF};
    QCOMPARE(detectImageFormat(png, 8), ImageFormat::Png);
    QCOMPARE(detectImageFormat(png, 7), ImageFormat::Unknown);
    QCOMPARE(detectImageFormat(jpeg, 3), ImageFormat::Jpeg);
    QCOMPARE(detectImageFormat(jpeg, 2), ImageFormat::Unknown);
    QCOMPARE(detectImageFormat(nullptr, 0), ImageFormat::Unknown);
  }
};

QTEST_GUILESS_MAIN(TestImageDecode)
#include "tst_image_decode.moc"
