// Damaged dataset files, made by the thousand from good ones: cut at every byte, bytes flipped,
// quotes, commas and line ends thrown in, garbage. Each must load or fail with a netsmith::Error
// that names the file, in one bounded line; never a crash, a hang or another exception. Runs
// under AddressSanitizer in the test command's sanitizer subset.
// netsmith-test-labels: asan

#include <QtTest>

#include "support/dataset_values.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/png_reader.h"
#include "unit/dataset_test_files.h"
#include "unit/fuzz_random.h"

using namespace netsmith;
using namespace netsmith::testing;

namespace {

// Messages stay short whatever the file holds (Note [CSV limits]).
constexpr qsizetype kMaxMessage = 4000;

}  // namespace

class TestDatasetFuzz : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  int m_cases = 0;
  int m_loaded = 0;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  // Loads `csv` in both on_error modes: a dataset whose arrays agree with its size, or an Error
  // naming `csv`.
  void loadOrClearError(const QString& csv, const QByteArray& what) {
    for (const char* onError : {"error", "skip"}) {
      ++m_cases;
      try {
        const Dataset ds = loadDataSource(csvSpec(csv), 1.0, onError);
        QVERIFY2(ds.size > 0, what.constData());
        QCOMPARE(datasetValues(ds).size(), static_cast<size_t>(ds.size * ds.sampleNumel()));
        QCOMPARE(ds.labels.size(), static_cast<size_t>(ds.size * ds.labelWidth));
        QCOMPARE(ds.rows.size(), static_cast<size_t>(ds.size));
        for (const std::string& w : ds.warnings) QVERIFY2(w.size() < 40000, what.constData());
        ++m_loaded;
      } catch (const Error& e) {
        const QString message = QString::fromStdString(e.what());
        QVERIFY2(message.contains(csv), qPrintable(QString("%1: no file in: %2").arg(what, message)));
        QVERIFY2(message.size() < kMaxMessage, qPrintable(QString("%1: %2 characters").arg(what).arg(message.size())));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
      }
    }
  }

  // decodePng gives pixels that fit the size it reports, or a reason naming the file.
  void decodeOrClearError(const QString& png, const QByteArray& what, bool truncated) {
    ++m_cases;
    DecodedImage image;
    std::string error;
    if (decodePng(png.toStdString(), 1.0, image, error)) {
      QCOMPARE(image.pixels.size(), static_cast<size_t>(image.channels) * image.height * image.width);
      QVERIFY(image.channels == 1 || image.channels == 3);
      ++m_loaded;
      return;
    }
    const QString message = QString::fromStdString(error);
    QVERIFY2(message.contains(png), qPrintable(QString("%1: %2").arg(what, message)));
    QVERIFY2(message.size() < kMaxMessage, qPrintable(message));
    if (truncated)  // a file cut short says so, whatever libpng made of it
      QVERIFY2(message.contains("truncated") || message.contains("empty") || message.contains("not a PNG"),
               qPrintable(QString("%1: %2").arg(what, message)));
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(writeGrayPng(path("a.png"), 4, 4, 0));
    QVERIFY(writeGrayPng(path("b.png"), 4, 4, 50));
  }

  void cleanupTestCase() { qInfo("%d cases, %d loaded", m_cases, m_loaded); }

  // Cut at every byte: each prefix of a good file.
  void csvCutAtEveryByte() {
    for (const QByteArray good : {QByteArray("x:image,y:label\r\na.png,1\n\"b.png\",0\n\"a\"\".png\",2\n"),
                                  QByteArray("x__0,x__1,y__0,y__1\n1.5,-2,0,1\n\"3\",4e2,1,\"0\"\n5,6,0,0\n")}) {
      for (int cut = 0; cut <= good.size(); ++cut) {
        writeText(path("cut.csv"), good.left(cut));
        loadOrClearError(path("cut.csv"), "cut at " + QByteArray::number(cut) + ": " + good.left(cut));
      }
    }
  }

  // Bytes replaced, inserted (quotes, commas, line ends, NUL, CR, non-UTF-8) and deleted.
  void csvMutations() {
    const QByteArray good = "x:image,y:label\na.png,1\nb.png,0\na.png,2\nb.png,3\n";
    const QByteArray specials("\",\n\r\0\xff \t0", 10);
    Lcg rng{12345};
    for (int i = 0; i < 600; ++i) {
      QByteArray bad = good;
      const int edits = 1 + static_cast<int>(rng.below(3));
      for (int e = 0; e < edits; ++e) {
        const auto at = static_cast<qsizetype>(rng.below(static_cast<size_t>(bad.size()) + 1));
        const char c = rng.below(2) ? specials[static_cast<qsizetype>(rng.below(specials.size()))]
                                    : static_cast<char>(rng.below(256));
        switch (rng.below(3)) {
          case 0:
            if (at < bad.size()) bad[at] = c;
            break;
          case 1: bad.insert(at, c); break;
          default: bad.remove(at, 1); break;
        }
      }
      writeText(path("mutated.csv"), bad);
      loadOrClearError(path("mutated.csv"), "mutation " + QByteArray::number(i) + ": " + bad.toPercentEncoding());
    }
  }

  // Not a CSV at all: random bytes, a PNG, one enormous line.
  void csvGarbage() {
    Lcg rng{777};
    for (int i = 0; i < 100; ++i) {
      QByteArray bad(static_cast<qsizetype>(rng.below(400)), '\0');
      for (auto& c : bad) c = static_cast<char>(rng.below(256));
      if (i % 3 == 0) bad.prepend("x:image,y:label\n");
      writeText(path("garbage.csv"), bad);
      loadOrClearError(path("garbage.csv"), "garbage " + QByteArray::number(i));
    }
    QFile::copy(path("a.png"), path("image.csv"));
    loadOrClearError(path("image.csv"), "a PNG named .csv");
  }

  // A PNG of each kind, cut at every byte: a cut before the end of the image data must say that
  // the file is truncated.
  void pngCutAtEveryByte() {
    struct Kind {
      const char* name;
      int colorType;
      int bitDepth;
      bool interlaced;
    };
    for (const Kind& k : {Kind{"gray", PNG_COLOR_TYPE_GRAY, 8, false}, Kind{"rgba", PNG_COLOR_TYPE_RGBA, 8, false},
                          Kind{"gray16", PNG_COLOR_TYPE_GRAY, 16, false}, Kind{"rgb-adam7", PNG_COLOR_TYPE_RGB, 8, true}}) {
      const QString good = path(QString("%1.png").arg(k.name));
      QVERIFY(writePng(good, 9, 7, k.colorType, k.bitDepth,
                       [&](int x, int y, int c) { return (x * 37 + y * 101 + c * 53) % (k.bitDepth == 16 ? 65536 : 256); },
                       k.interlaced));
      const auto bytes = readBytes(good);
      // The image data ends where the IEND chunk (12 bytes) begins; png_read_end is not called.
      const size_t dataEnd = bytes.size() - 12;
      for (size_t cut = 0; cut < bytes.size(); ++cut) {
        writeBytes(path("cut.png"), std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(cut)));
        decodeOrClearError(path("cut.png"), QByteArray(k.name) + " cut at " + QByteArray::number(qulonglong(cut)),
                           cut < dataEnd);
      }
    }
  }

  // Bytes flipped anywhere in a PNG, and a PNG signature followed by garbage.
  void pngMutations() {
    QVERIFY(writePng(path("rgb.png"), 16, 16, PNG_COLOR_TYPE_RGB, 8, [](int x, int y, int c) { return x * 16 + y + c; }));
    const auto good = readBytes(path("rgb.png"));
    Lcg rng{99};
    for (int i = 0; i < 600; ++i) {
      auto bad = good;
      const int flips = 1 + static_cast<int>(rng.below(4));
      for (int f = 0; f < flips; ++f) bad[rng.below(bad.size())] ^= static_cast<uint8_t>(1 + rng.below(255));
      writeBytes(path("flipped.png"), bad);
      decodeOrClearError(path("flipped.png"), "flip " + QByteArray::number(i), false);
    }
    for (int i = 0; i < 100; ++i) {
      std::vector<uint8_t> bad(good.begin(), good.begin() + 8);
      const size_t n = rng.below(300);
      for (size_t k = 0; k < n; ++k) bad.push_back(static_cast<uint8_t>(rng.below(256)));
      writeBytes(path("noise.png"), bad);
      decodeOrClearError(path("noise.png"), "noise " + QByteArray::number(i), false);
    }
  }

  // Damaged PNGs through a CSV: the error names the CSV, the row and the image.
  void damagedPngInCsv() {
    const auto good = readBytes(path("a.png"));
    writeBytes(path("half.png"), std::vector<uint8_t>(good.begin(), good.begin() + static_cast<long>(good.size() / 2)));
    writeText(path("half.csv"), "x:image,y:label\na.png,1\nhalf.png,0\n");
    try {
      loadDataSource(csvSpec(path("half.csv")), 1.0, "error");
      QFAIL("a truncated PNG loaded");
    } catch (const Error& e) {
      const QString message = e.what();
      for (const QString& part : {path("half.csv"), QString("row 3"), path("half.png"), QString("truncated")})
        QVERIFY2(message.contains(part), qPrintable(QString("no '%1' in: %2").arg(part, message)));
    }
    loadOrClearError(path("half.csv"), "truncated PNG in a CSV");
  }
};

QTEST_GUILESS_MAIN(TestDatasetFuzz)
#include "tst_dataset_fuzz.moc"
