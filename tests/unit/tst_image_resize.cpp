// resizeImage and convertChannels: area averaging when shrinking (known block patterns and their
// exact means), bilinear enlarging, the geometry of squash, crop and pad on wide and tall images,
// and Rec. 601 luma.
// netsmith-test-labels: asan

#include <QtTest>
#include <cmath>

#include "engine/core/error.h"
#include "engine/data/image/resize.h"

using namespace netsmith;

namespace {

Image pattern(int w, int h, int channels, const std::function<int(int, int, int)>& value) {
  Image image(w, h, channels);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) image.at(x, y, c) = static_cast<uint8_t>(value(x, y, c));
  return image;
}

}  // namespace

class TestImageResize : public QObject {
  Q_OBJECT

 private slots:
  // Shrinking by whole factors: each output pixel is the mean of its block.
  void areaAverageWholeFactor() {
    // 6 x 4 -> 3 x 2: 2 x 2 blocks; values chosen so each block's mean is a whole number.
    const Image src = pattern(6, 4, 1, [](int x, int y, int) { return 8 * x + 40 * y + ((x + y) % 2) * 4; });
    const Image out = resizeImage(src, 3, 2);
    QCOMPARE(out.width, 3);
    QCOMPARE(out.height, 2);
    for (int oy = 0; oy < 2; ++oy)
      for (int ox = 0; ox < 3; ++ox) {
        int sum = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) sum += src.at(2 * ox + dx, 2 * oy + dy);
        QCOMPARE(int(out.at(ox, oy)), sum / 4);
        QCOMPARE(sum % 4, 0);
      }
  }

  // A one-pixel checkerboard shrunk by 2, 4 or 8 is flat grey, never an alias pattern (point
  // sampling would give all black or all white).
  void checkerboardAveragesToGrey() {
    const Image board = pattern(24, 24, 3, [](int x, int y, int) { return (x + y) % 2 ? 255 : 0; });
    for (int size : {12, 6, 3}) {
      const Image out = resizeImage(board, size, size);
      for (uint8_t v : out.pixels) QVERIFY2(std::abs(v - 127.5) <= 1.0, qPrintable(QString::number(v)));
    }
    // 3 -> 2 (a fractional factor): output 0 covers source [0, 1.5): 1 x s0 + 0.5 x s1.
    const Image three = pattern(3, 1, 1, [](int x, int, int) { return x == 0 ? 30 : x == 1 ? 90 : 210; });
    const Image two = resizeImage(three, 2, 1);
    QCOMPARE(int(two.at(0, 0)), 50);   // (30 + 0.5 * 90) / 1.5
    QCOMPARE(int(two.at(1, 0)), 170);  // (0.5 * 90 + 210) / 1.5
  }

  // The mean of the whole image is kept by area averaging (to rounding), whatever the factor.
  void meanPreserved() {
    const Image src = pattern(97, 61, 1, [](int x, int y, int) { return (x * 37 + y * 91 + x * y) % 256; });
    double mean = 0;
    for (uint8_t v : src.pixels) mean += v;
    mean /= static_cast<double>(src.pixels.size());
    for (auto [w, h] : {std::pair{1, 1}, std::pair{10, 7}, std::pair{32, 20}}) {
      const Image out = resizeImage(src, w, h);
      double m = 0;
      for (uint8_t v : out.pixels) m += v;
      m /= static_cast<double>(out.pixels.size());
      QVERIFY2(std::abs(m - mean) < (w == 1 ? 0.51 : 1.0), qPrintable(QString("%1x%2: %3 vs %4").arg(w).arg(h).arg(m).arg(mean)));
    }
  }

  // Enlarging: bilinear between pixel centres, edges held.
  void bilinearEnlarge() {
    const Image src = pattern(2, 1, 1, [](int x, int, int) { return x ? 200 : 0; });
    const Image out = resizeImage(src, 4, 1);
    // Output centres at source positions -0.25, 0.25, 0.75, 1.25: clamped, 1/4, 3/4, clamped.
    QCOMPARE(int(out.at(0, 0)), 0);
    QCOMPARE(int(out.at(1, 0)), 50);
    QCOMPARE(int(out.at(2, 0)), 150);
    QCOMPARE(int(out.at(3, 0)), 200);
    // A flat image stays flat; the same size is an exact copy.
    const Image flat = pattern(3, 5, 3, [](int, int, int c) { return 60 + c; });
    for (uint8_t v : resizeImage(flat, 11, 13).pixels) QVERIFY(v >= 60 && v <= 62);
    const Image any = pattern(7, 5, 3, [](int x, int y, int c) { return x * 30 + y * 7 + c; });
    QCOMPARE(resizeImage(any, 7, 5).pixels, any.pixels);
  }

  // One axis shrinks while the other grows.
  void mixedAxes() {
    const Image src = pattern(4, 2, 1, [](int x, int y, int) { return y ? 100 : 20 * x; });
    const Image out = resizeImage(src, 2, 4);
    QCOMPARE(out.width, 2);
    QCOMPARE(out.height, 4);
    QCOMPARE(int(out.at(0, 0)), 10);   // row 0: mean of 0, 20
    QCOMPARE(int(out.at(1, 0)), 50);   // mean of 40, 60
    QCOMPARE(int(out.at(0, 3)), 100);  // row 1, held at the bottom edge
  }

  // Squash ignores the aspect ratio: a 40 x 10 image with a left half of 0 and right half of 200
  // keeps the split at the middle of a 10 x 10 output.
  void squashGeometry() {
    const Image src = pattern(40, 10, 1, [](int x, int, int) { return x < 20 ? 0 : 200; });
    const Image out = resizeImage(src, 10, 10, ResizeMode::Squash);
    QCOMPARE(out.width, 10);
    QCOMPARE(out.height, 10);
    for (int y = 0; y < 10; ++y) {
      QCOMPARE(int(out.at(4, y)), 0);
      QCOMPARE(int(out.at(5, y)), 200);
    }
  }

  // Crop keeps the centre of the long side: a 30 x 10 image in three 10-pixel bands (50, 150,
  // 250) cropped to 5 x 5 is the middle band only; a tall image likewise.
  void cropGeometry() {
    const Image wide = pattern(30, 10, 3, [](int x, int, int) { return 50 + 100 * (x / 10); });
    const Image out = resizeImage(wide, 5, 5, ResizeMode::Crop);
    QCOMPARE(out.width, 5);
    QCOMPARE(out.height, 5);
    for (uint8_t v : out.pixels) QCOMPARE(int(v), 150);
    const Image tall = pattern(10, 30, 1, [](int, int y, int) { return 50 + 100 * (y / 10); });
    const Image t = resizeImage(tall, 4, 4, ResizeMode::Crop);
    for (uint8_t v : t.pixels) QCOMPARE(int(v), 150);
    // A target wider than the source: 20 x 20 to 20 x 10 keeps rows 5..14.
    const Image rows = pattern(20, 20, 1, [](int, int y, int) { return y; });
    const Image r = resizeImage(rows, 20, 10, ResizeMode::Crop);
    QCOMPARE(r.height, 10);
    for (int y = 0; y < 10; ++y) QCOMPARE(int(r.at(7, y)), y + 5);
    // Odd excess: 11 wide to 10 wide (same height) drops one column, on the right.
    const Image cols = pattern(11, 10, 1, [](int x, int, int) { return x * 10; });
    const Image c = resizeImage(cols, 10, 10, ResizeMode::Crop);
    QCOMPARE(int(c.at(0, 0)), 0);
    QCOMPARE(int(c.at(9, 0)), 90);
  }

  // Pad scales the long side to fit and centres the image on the pad value: 40 x 20 of 200 into
  // 10 x 10 is a 10 x 5 band in rows 2..6 (the odd margin row at the bottom), black elsewhere.
  void padGeometry() {
    const Image src = pattern(40, 20, 3, [](int, int, int) { return 200; });
    const Image out = resizeImage(src, 10, 10, ResizeMode::Pad);
    QCOMPARE(out.width, 10);
    QCOMPARE(out.height, 10);
    for (int y = 0; y < 10; ++y)
      for (int x = 0; x < 10; ++x) {
        const int want = (y >= 2 && y <= 6) ? 200 : kPadValue;
        for (int c = 0; c < 3; ++c)
          QVERIFY2(out.at(x, y, c) == want, qPrintable(QString("(%1,%2): %3").arg(x).arg(y).arg(out.at(x, y, c))));
      }
    // A tall image gets side margins, in the colour asked for.
    const Image tall = pattern(5, 20, 1, [](int, int, int) { return 100; });
    const Image t = resizeImage(tall, 8, 8, ResizeMode::Pad, 255);
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x) QCOMPARE(int(t.at(x, y)), (x >= 3 && x <= 4) ? 100 : 255);
    // The same aspect ratio: no margin at all.
    const Image same = resizeImage(pattern(20, 10, 1, [](int, int, int) { return 9; }), 8, 4, ResizeMode::Pad);
    for (uint8_t v : same.pixels) QCOMPARE(int(v), 9);
  }

  void channels() {
    const Image rgb = pattern(3, 1, 3, [](int x, int, int c) {
      const int colours[3][3] = {{255, 0, 0}, {0, 255, 0}, {10, 20, 200}};
      return colours[x][c];
    });
    const Image gray = convertChannels(rgb, 1);
    QCOMPARE(gray.channels, 1);
    QCOMPARE(int(gray.at(0, 0)), 76);   // 0.299 * 255 = 76.2
    QCOMPARE(int(gray.at(1, 0)), 150);  // 0.587 * 255 = 149.7
    QCOMPARE(int(gray.at(2, 0)), 38);   // 2.99 + 11.74 + 22.8 = 37.53
    const Image back = convertChannels(gray, 3);
    QCOMPARE(back.channels, 3);
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 3; ++c) QCOMPARE(back.at(x, 0, c), gray.at(x, 0));
    QCOMPARE(convertChannels(rgb, 3).pixels, rgb.pixels);
  }

  void prepare() {
    const Image rgb = pattern(40, 20, 3, [](int, int, int c) { return c == 0 ? 255 : 0; });
    const Image g = prepareImage(rgb, ImageTarget{.width = 8, .height = 8, .channels = 1, .mode = ResizeMode::Crop});
    QCOMPARE(g.channels, 1);
    QCOMPARE(g.width, 8);
    for (uint8_t v : g.pixels) QCOMPARE(int(v), 76);
    const Image grey = pattern(4, 4, 1, [](int, int, int) { return 90; });
    const Image c = prepareImage(grey, ImageTarget{.width = 2, .height = 6, .channels = 3, .mode = ResizeMode::Pad});
    QCOMPARE(c.channels, 3);
    QCOMPARE(c.height, 6);
    QCOMPARE(int(c.at(1, 0, 2)), 0);   // margin
    QCOMPARE(int(c.at(1, 3, 2)), 90);  // image
  }

  void modeNames() {
    for (ResizeMode m : {ResizeMode::Squash, ResizeMode::Crop, ResizeMode::Pad})
      QCOMPARE(parseResizeMode(resizeModeName(m)), std::optional<ResizeMode>(m));
    QVERIFY(!parseResizeMode("stretch"));
    QVERIFY(!parseResizeMode(""));
  }

  void badArguments() {
    const Image ok = pattern(4, 4, 1, [](int, int, int) { return 1; });
    QVERIFY_THROWS_EXCEPTION(Error, resizeImage(ok, 0, 4));
    QVERIFY_THROWS_EXCEPTION(Error, resizeImage(Image{}, 4, 4));
    QVERIFY_THROWS_EXCEPTION(Error, resizeRegion(ok, 2, 2, 3, 3, 4, 4));
    QVERIFY_THROWS_EXCEPTION(Error, convertChannels(ok, 2));
  }
};

QTEST_GUILESS_MAIN(TestImageResize)
#include "tst_image_resize.moc"
