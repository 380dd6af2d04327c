// Damaged image files, made by the thousand from good PNGs and JPEGs: cut at many offsets, bytes
// flipped, zero-length, wrong magic, huge declared sizes, garbage Exif with offsets and counts
// past the segment's end. decodeImage must give a consistent image or a one-line reason naming
// the file; never a crash, a hang, an exception or a message on stderr. Runs under AddressSanitizer
// and UBSan in the test command's sanitizer subset.
// netsmith-test-labels: asan

#include <zlib.h>

#include <QtTest>

#include "engine/data/image/exif.h"
#include "engine/data/image/image.h"
#include "unit/image_test_files.h"
#include "unit/fuzz_random.h"

using namespace netsmith;
using namespace netsmith::testing;

namespace {

constexpr qsizetype kMaxMessage = 4000;

// The offset of the first SOFn segment's marker (FF C0..C2) in a JPEG, walking the segments; -1
// if none.
qsizetype findSof(const std::vector<uint8_t>& b) {
  size_t i = 2;
  while (i + 4 <= b.size() && b[i] == 0xFF) {
    const uint8_t marker = b[i + 1];
    if (marker >= 0xC0 && marker <= 0xC2) return static_cast<qsizetype>(i);
    i += 2 + (size_t{b[i + 2]} << 8 | b[i + 3]);
  }
  return -1;
}

void putBe16(std::vector<uint8_t>& b, size_t at, unsigned v) {
  b[at] = static_cast<uint8_t>(v >> 8);
  b[at + 1] = static_cast<uint8_t>(v);
}

void putBe32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  putBe16(b, at, v >> 16);
  putBe16(b, at + 2, v & 0xFFFF);
}

// A PNG's IHDR with another width and height, its CRC made right again (so libpng reads the size
// rather than stopping at a bad checksum).
std::vector<uint8_t> withPngSize(std::vector<uint8_t> b, uint32_t width, uint32_t height) {
  putBe32(b, 16, width);
  putBe32(b, 20, height);
  putBe32(b, 29, static_cast<uint32_t>(crc32(0, b.data() + 12, 17)));
  return b;
}

}  // namespace

class TestImageFuzz : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  int m_cases = 0;
  int m_decoded = 0;
  struct Good {
    QString name;
    bool jpeg;
    std::vector<uint8_t> bytes;
  };
  std::vector<Good> m_good;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  // Decodes `file`: an image whose pixels fit its size, or a reason naming the file in one short
  // line. Returns the message ("" on success).
  QString decodeOrClearError(const QString& file, const QString& what, ImageDecodeInfo* info = nullptr) {
    ++m_cases;
    Image image;
    std::string error;
    if (decodeImage(file.toStdString(), image, error, info)) {
      [&] {
        QVERIFY2(image.channels == 1 || image.channels == 3, qPrintable(what));
        QVERIFY2(image.width >= 1 && image.height >= 1, qPrintable(what));
        QCOMPARE(image.pixels.size(), static_cast<size_t>(image.width) * image.height * image.channels);
      }();
      ++m_decoded;
      return {};
    }
    const QString message = QString::fromStdString(error);
    [&] {
      QVERIFY2(!message.isEmpty(), qPrintable(what + ": failed without a reason"));
      QVERIFY2(message.contains(file), qPrintable(QString("%1: no file in: %2").arg(what, message)));
      QVERIFY2(message.size() < kMaxMessage, qPrintable(QString("%1: %2 characters").arg(what).arg(message.size())));
      QVERIFY2(!message.contains('\n'), qPrintable(message));
    }();
    return message;
  }

  QString decodeBytes(const std::vector<uint8_t>& bytes, const QString& what, ImageDecodeInfo* info = nullptr) {
    const QString file = path("case.img");
    [&] { QVERIFY(writeFileBytes(file, bytes)); }();
    return decodeOrClearError(file, what, info);
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    auto grad = [](int x, int y, int c) { return (x * 23 + y * 41 + c * 97) % 256; };
    auto add = [&](const QString& name, bool jpeg) { m_good.push_back({name, jpeg, readFileBytes(path(name))}); };

    QVERIFY(writePngFile(path("rgba.png"), PngSpec{.width = 9, .height = 7, .colorType = PNG_COLOR_TYPE_RGBA, .interlaced = true}, grad));
    add("rgba.png", false);
    PngSpec palette{.width = 10, .height = 6, .colorType = PNG_COLOR_TYPE_PALETTE, .bitDepth = 4,
                    .palette = {{1, 2, 3}, {200, 100, 0}, {9, 250, 9}}, .paletteAlpha = {0, 99}};
    QVERIFY(writePngFile(path("palette.png"), palette, [](int x, int y, int) { return (x + y) % 3; }));
    add("palette.png", false);
    QVERIFY(writePngFile(path("gray16.png"), PngSpec{.width = 13, .height = 5, .colorType = PNG_COLOR_TYPE_GRAY, .bitDepth = 16},
                         [](int x, int y, int) { return x * 5000 + y; }));
    add("gray16.png", false);

    JpegSpec baseline{.width = 24, .height = 16, .fullChroma = false, .app1 = exifWithOrientation(6, true)};
    QVERIFY(writeJpegFile(path("baseline.jpg"), baseline, grad));
    add("baseline.jpg", true);
    JpegSpec progressive{.width = 24, .height = 16, .progressive = true, .app1 = exifWithOrientation(3, false)};
    QVERIFY(writeJpegFile(path("progressive.jpg"), progressive, grad));
    add("progressive.jpg", true);
    QVERIFY(writeJpegFile(path("gray.jpg"), JpegSpec{.width = 16, .height = 9, .components = 1}, grad));
    add("gray.jpg", true);
    QVERIFY(writeJpegFile(path("cmyk.jpg"), JpegSpec{.width = 8, .height = 8, .components = 4}, grad));
    add("cmyk.jpg", true);
    for (const Good& g : m_good) {
      QVERIFY2(g.bytes.size() > 50, qPrintable(g.name));
      QVERIFY2(decodeOrClearError(path(g.name), g.name).isEmpty(), qPrintable(g.name));
    }
  }

  void cleanupTestCase() { qInfo("%d cases, %d decoded", m_cases, m_decoded); }

  // Prefixes of every good file. A cut JPEG always fails as truncated (its end-of-image
  // marker is missing); a cut PNG fails as truncated unless only its IEND chunk (the last 12
  // bytes) is gone, which the pixels do not need.
  void cutAtManyOffsets() {
    for (const Good& g : m_good) {
      // Every byte through the headers and tables, then every 5th and the last 16 (trailer).
      for (size_t cut = 0; cut < g.bytes.size(); cut += (cut < 256 || cut + 16 >= g.bytes.size()) ? 1 : 5) {
        const std::vector<uint8_t> prefix(g.bytes.begin(), g.bytes.begin() + static_cast<qsizetype>(cut));
        const QString what = QString("%1 cut at %2 of %3").arg(g.name).arg(cut).arg(g.bytes.size());
        const QString message = decodeBytes(prefix, what);
        if (QTest::currentTestFailed()) return;
        const bool mustFail = g.jpeg || cut + 12 < g.bytes.size();
        if (!mustFail) continue;
        QVERIFY2(!message.isEmpty(), qPrintable(what + ": decoded"));
        QVERIFY2(message.contains("truncated") || message.contains("is empty"), qPrintable(what + ": " + message));
      }
    }
  }

  // Bytes XORed with random values at random places (1 to 4 per case), everywhere in the file.
  void flippedBytes() {
    Lcg rng{2026};
    for (const Good& g : m_good) {
      for (int i = 0; i < 150; ++i) {
        std::vector<uint8_t> bad = g.bytes;
        const int edits = 1 + static_cast<int>(rng.below(4));
        QString where;
        for (int e = 0; e < edits; ++e) {
          const size_t at = rng.below(bad.size());
          bad[at] ^= static_cast<uint8_t>(1 + rng.below(255));
          where += QString(" %1").arg(at);
        }
        decodeBytes(bad, QString("%1 flipped at%2").arg(g.name, where));
        if (QTest::currentTestFailed()) return;
      }
    }
  }

  // Runs of bytes deleted, duplicated or zeroed in the middle of the file.
  void splicedBytes() {
    Lcg rng{77};
    for (const Good& g : m_good) {
      for (int i = 0; i < 100; ++i) {
        std::vector<uint8_t> bad = g.bytes;
        const size_t at = rng.below(bad.size());
        const size_t len = 1 + rng.below(std::min<size_t>(64, bad.size() - at));
        const auto first = bad.begin() + static_cast<qsizetype>(at);
        switch (rng.below(3)) {
          case 0: bad.erase(first, first + static_cast<qsizetype>(len)); break;
          case 1: {
            const std::vector<uint8_t> run(first, first + static_cast<qsizetype>(len));
            bad.insert(bad.begin() + static_cast<qsizetype>(at), run.begin(), run.end());
            break;
          }
          default: std::fill(first, first + static_cast<qsizetype>(len), uint8_t{0}); break;
        }
        decodeBytes(bad, QString("%1 spliced at %2 (%3 bytes)").arg(g.name).arg(at).arg(len));
        if (QTest::currentTestFailed()) return;
      }
    }
  }

  void zeroLengthAndWrongMagic() {
    QVERIFY(decodeBytes({}, "empty").contains("is empty"));
    for (const Good& g : m_good) {
      for (size_t at : {size_t{0}, size_t{1}, size_t{2}}) {
        std::vector<uint8_t> bad = g.bytes;
        bad[at] ^= 0x20;
        const QString message = decodeBytes(bad, g.name + " magic");
        QVERIFY2(message.contains("is not an image (PNG or JPEG)"), qPrintable(g.name + ": " + message));
      }
    }
  }

  // Sizes a header can claim: beyond the limit (refused before any allocation), zero, and large
  // but allowed with almost no data behind it (truncated).
  void hugeDeclaredSizes() {
    const std::vector<uint8_t> png = m_good[0].bytes;
    QVERIFY(decodeBytes(withPngSize(png, 100000, 100000), "PNG 100000x100000").contains("too large"));
    QVERIFY(decodeBytes(withPngSize(png, 0x7FFFFFFF, 2), "PNG 2^31-1 wide").contains("cannot decode PNG"));
    QVERIFY(decodeBytes(withPngSize(png, 0, 7), "PNG 0 wide").contains("cannot decode PNG"));
    const QString big = decodeBytes(withPngSize(png, 3000, 3000), "PNG 3000x3000");
    QVERIFY2(big.contains("truncated") || big.contains("damaged"), qPrintable(big));

    for (const Good& g : m_good) {
      if (!g.jpeg) continue;
      const qsizetype sof = findSof(g.bytes);
      QVERIFY2(sof > 0, qPrintable(g.name));
      auto sized = [&](unsigned width, unsigned height) {
        std::vector<uint8_t> b = g.bytes;
        putBe16(b, static_cast<size_t>(sof) + 5, height);
        putBe16(b, static_cast<size_t>(sof) + 7, width);
        return b;
      };
      const QString huge = decodeBytes(sized(65000, 65000), g.name + " 65000x65000");
      QVERIFY2(huge.contains("too large"), qPrintable(huge));
      const QString zero = decodeBytes(sized(24, 0), g.name + " height 0");
      QVERIFY2(zero.contains("cannot decode JPEG"), qPrintable(zero));
      const QString large = decodeBytes(sized(2000, 1500), g.name + " 2000x1500");
      QVERIFY2(large.contains("truncated") || large.contains("cannot decode JPEG"), qPrintable(large));
    }
  }

  // A progressive JPEG may hold at most 500 scans: one with 64 decodes; one with 694 (every AC
  // coefficient its own band, refined bit by bit) is refused with the reason.
  void progressiveScanLimit_data() {
    QTest::addColumn<int>("refinements");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("64 scans") << 0 << true;
    QTest::newRow("694 scans") << 10 << false;
  }
  void progressiveScanLimit() {
    QFETCH(int, refinements);
    QFETCH(bool, accepted);
    JpegSpec spec{.width = 16, .height = 16, .components = 1};
    spec.scans.push_back(jpeg_scan_info{1, {0}, 0, 0, 0, 0});  // DC
    for (int k = 1; k < 64; ++k) {
      spec.scans.push_back(jpeg_scan_info{1, {0}, k, k, 0, refinements});
      for (int al = refinements - 1; al >= 0; --al) spec.scans.push_back(jpeg_scan_info{1, {0}, k, k, al + 1, al});
    }
    QCOMPARE(static_cast<int>(spec.scans.size()), 1 + 63 * (1 + refinements));
    const std::vector<uint8_t> bytes = encodeJpeg(spec, [](int x, int y, int) { return (x * 16 + y * 3) % 256; });
    QVERIFY(!bytes.empty());
    ImageDecodeInfo info;
    const QString message = decodeBytes(bytes, QTest::currentDataTag(), &info);
    if (accepted) {
      QVERIFY2(message.isEmpty(), qPrintable(message));
      QVERIFY(info.progressive);
    } else {
      QVERIFY2(message.contains("cannot decode JPEG") && message.contains("more than 500 progressive scans"),
               qPrintable(message));
    }
  }

  // Exif segments that lie: each JPEG still decodes, unturned, and says why its Exif was ignored.
  void garbageExif_data() {
    QTest::addColumn<QByteArray>("exif");
    const std::vector<uint8_t> good = exifWithOrientation(6, true);  // MM, IFD0 at 8, 2 entries
    auto row = [](const char* name, std::vector<uint8_t> b) {
      QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(b.data()), static_cast<qsizetype>(b.size()));
    };
    auto with = [&](size_t at, std::initializer_list<uint8_t> bytes) {
      std::vector<uint8_t> b = good;
      std::copy(bytes.begin(), bytes.end(), b.begin() + static_cast<qsizetype>(at));
      return b;
    };
    row("only the Exif name", {'E', 'x', 'i', 'f', 0, 0});
    row("cut inside the TIFF header", {good.begin(), good.begin() + 10});
    row("byte order XX", with(6, {'X', 'X'}));
    row("no 42", with(8, {0, 43}));
    row("IFD0 offset past the end", with(10, {0xFF, 0xFF, 0xFF, 0xF0}));
    row("IFD0 offset at the last byte", with(10, {0, 0, 0, static_cast<uint8_t>(good.size() - 6 - 1)}));
    row("65535 entries", with(14, {0xFF, 0xFF}));
    row("entries cut off", {good.begin(), good.end() - 8});
    row("orientation 9", with(6 + 8 + 2 + 12 + 8, {0, 9}));
    row("orientation 0", with(6 + 8 + 2 + 12 + 8, {0, 0}));
    row("orientation 65535", with(6 + 8 + 2 + 12 + 8, {0xFF, 0xFF}));
    row("orientation as ASCII", with(6 + 8 + 2 + 12 + 2, {0, 2}));
    row("orientation count 0", with(6 + 8 + 2 + 12 + 4, {0, 0, 0, 0}));
  }
  void garbageExif() {
    QFETCH(QByteArray, exif);
    JpegSpec spec{.width = 32, .height = 16, .app1 = {exif.begin(), exif.end()}};
    const std::vector<uint8_t> bytes = encodeJpeg(spec, [](int x, int, int) { return x * 8; });
    QVERIFY(!bytes.empty());
    ImageDecodeInfo info;
    const QString message = decodeBytes(bytes, QTest::currentDataTag(), &info);
    QVERIFY2(message.isEmpty(), qPrintable(message));
    QCOMPARE(info.orientation, 1);
    QVERIFY2(!info.exifProblem.empty(), "no reason given for ignoring the Exif segment");
    QVERIFY2(info.exifProblem.find('\n') == std::string::npos, info.exifProblem.c_str());
  }

  // The Exif parser alone on every prefix and thousands of mutations of a good segment, each in a
  // buffer of exactly its size, so AddressSanitizer sees any read past the end.
  void exifParserNeverReadsOutside() {
    for (bool big : {false, true}) {
      const std::vector<uint8_t> good = exifWithOrientation(8, big);
      std::string problem;
      QCOMPARE(parseExifOrientation(good.data(), good.size(), problem), 8);
      for (size_t n = 0; n < good.size(); ++n) {
        const std::vector<uint8_t> prefix(good.begin(), good.begin() + static_cast<qsizetype>(n));
        const int o = parseExifOrientation(prefix.empty() ? nullptr : prefix.data(), prefix.size(), problem);
        QVERIFY2(o == 0 || n >= good.size() - 6, qPrintable(QString("prefix %1 gave %2").arg(n).arg(o)));
        if (n > 6) QVERIFY2(o != 0 || !problem.empty(), qPrintable(QString("prefix %1: no problem named").arg(n)));
      }
      Lcg rng{big ? 5u : 6u};
      for (int i = 0; i < 5000; ++i) {
        std::vector<uint8_t> bad = good;
        const int edits = 1 + static_cast<int>(rng.below(4));
        for (int e = 0; e < edits; ++e) bad[6 + rng.below(bad.size() - 6)] = static_cast<uint8_t>(rng.next());
        const int o = parseExifOrientation(bad.data(), bad.size(), problem);
        QVERIFY(o >= 0 && o <= 8);
      }
      for (int i = 0; i < 2000; ++i) {  // pure noise after the name
        std::vector<uint8_t> noise(6 + rng.below(64));
        std::copy(good.begin(), good.begin() + 6, noise.begin());
        for (size_t k = 6; k < noise.size(); ++k) noise[k] = static_cast<uint8_t>(rng.next());
        if (noise.size() >= 8 && rng.below(2)) noise[6] = noise[7] = big ? 'M' : 'I';
        const int o = parseExifOrientation(noise.data(), noise.size(), problem);
        QVERIFY(o >= 0 && o <= 8);
      }
    }
  }

  // Mutated Exif inside whole JPEGs.
  void mutatedExifInJpeg() {
    Lcg rng{99};
    const std::vector<uint8_t> good = exifWithOrientation(5, false);
    for (int i = 0; i < 150; ++i) {
      std::vector<uint8_t> exif = good;
      for (int e = 0; e < 3; ++e) exif[6 + rng.below(exif.size() - 6)] = static_cast<uint8_t>(rng.next());
      if (rng.below(3) == 0) exif.resize(6 + rng.below(exif.size() - 6));
      JpegSpec spec{.width = 16, .height = 8, .app1 = exif};
      const std::vector<uint8_t> bytes = encodeJpeg(spec, [](int x, int y, int c) { return x * 9 + y + c; });
      QVERIFY(!bytes.empty());
      ImageDecodeInfo info;
      const QString message = decodeBytes(bytes, QString("exif mutation %1").arg(i), &info);
      QVERIFY2(message.isEmpty(), qPrintable(message));
      QVERIFY(info.orientation >= 1 && info.orientation <= 8);
    }
  }
};

QTEST_GUILESS_MAIN(TestImageFuzz)
#include "tst_image_fuzz.moc"
