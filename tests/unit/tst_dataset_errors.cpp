// Broken datasets: each must fail with a netsmith::Error that names the file, the row where there
// is one, and the problem, in a message of bounded size; and on_error "skip" must leave bad rows
// out and list them.
// netsmith-test-labels: asan

#include <QtTest>

#include "support/dataset_values.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "unit/dataset_test_files.h"

using namespace netsmith;
using namespace netsmith::testing;

namespace {
// A 4x4 palette PNG of 4 colours (dataset_test_files.h writes no palette images).
bool writePalettePng(const QString& path, int width, int height) {
  std::FILE* file = std::fopen(path.toStdString().c_str(), "wb");
  if (!file) return false;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_color palette[4] = {{0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  png_set_PLTE(png, info, palette, 4);
  png_write_info(png, info);
  std::vector<uint8_t> row(static_cast<size_t>(width));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) row[x] = static_cast<uint8_t>((x + y) % 4);
    png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::fclose(file);
  return true;
}

// Bytes that gzip cannot shrink, so that cutting the .gz file cuts the data.
std::vector<uint8_t> noise(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) {
    seed = seed * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(seed >> 24);
  }
  return v;
}
}  // namespace

class TestDatasetErrors : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  int m_case = 0;

  QString path(const QString& name) const { return m_dir.filePath(name); }
  // A fresh folder per row, so that rows cannot see each other's files.
  QString folder() {
    const QString f = QString("case%1").arg(++m_case);
    QDir(m_dir.path()).mkpath(f);
    return m_dir.filePath(f) + "/";
  }

  // expected: substrings the message must contain; a leading '!' means must not contain.
  static void addRow(const char* name, const QString& format, const QString& first, const QString& second,
                     const QString& onError, const QStringList& expected) {
    QTest::newRow(name) << format << first << second << onError << expected;
  }
  static void addIdx(const char* name, const QString& images, const QString& labels, const QStringList& expected) {
    addRow(name, "idx", images, labels, "error", expected);
  }
  static void addCsv(const char* name, const QString& csv, const QStringList& expected,
                     const QString& onError = "error") {
    addRow(name, "csv", csv, QString(), onError, expected);
  }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void brokenDatasets_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("first");   // idx: images, csv: the CSV file
    QTest::addColumn<QString>("second");  // idx: labels
    QTest::addColumn<QString>("onError");
    QTest::addColumn<QStringList>("expected");

    // ---- IDX --------------------------------------------------------------------------------
    QString d = folder();
    const QString images = d + "images.idx", labels = d + "labels.idx";
    writeBytes(images, idxBytes(0x08, {3, 2, 2}, noise(12, 1)));
    writeBytes(labels, idxBytes(0x08, {3}, {1, 2, 0}));

    addIdx("idx: missing images file", d + "nope-images.gz", labels,
           {d + "nope-images.gz", "IDX images file", "does not exist"});
    addIdx("idx: a folder", d.chopped(1), labels, {d.chopped(1), "IDX images file", "is a folder"});
    addIdx("idx: missing labels file", images, d + "nope-labels.gz",
           {d + "nope-labels.gz", "IDX labels file", "does not exist"});

    writeBytes(d + "short.idx", idxBytes(0x08, {3, 2, 2}, noise(7, 2)));
    addIdx("idx: truncated images", d + "short.idx", labels,
           {d + "short.idx", "truncated", "expected 28 bytes", "found 23"});

    {
      const auto big = idxBytes(0x08, {100, 16, 16}, noise(25600, 3));
      writeGzip(d + "full.gz", big);
      auto gz = readBytes(d + "full.gz");
      gz.resize(gz.size() / 2);
      writeBytes(d + "cut.gz", gz);
      writeBytes(d + "labels100.idx", idxBytes(0x08, {100}, std::vector<uint8_t>(100, 1)));
      addIdx("idx: truncated gzip", d + "cut.gz", d + "labels100.idx",
             {d + "cut.gz", "truncated", "expected 25616 bytes", "gzip stream also ends early"});
      auto damaged = readBytes(d + "full.gz");
      for (size_t i = damaged.size() / 3; i < damaged.size() / 3 + 64; ++i) damaged[i] ^= 0x5A;
      writeBytes(d + "damaged.gz", damaged);
      addIdx("idx: damaged gzip", d + "damaged.gz", d + "labels100.idx",
             {d + "damaged.gz", "not valid gzip data", "damaged"});
    }

    writeBytes(d + "magic.idx", {0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1, 0});
    addIdx("idx: bad magic", d + "magic.idx", labels,
           {d + "magic.idx", "bad magic number 0x12345678", "expected 0x00000803"});
    writeText(d + "text.idx", "this is not an IDX file\n");
    addIdx("idx: text file", d + "text.idx", labels, {d + "text.idx", "bad magic number"});
    writeBytes(d + "empty.idx", {});
    addIdx("idx: empty file", d + "empty.idx", labels, {d + "empty.idx", "too short", "0 bytes"});
    addIdx("idx: images and labels swapped", labels, images, {images, "IDX labels file", "3 dimensions", "swapped"});

    writeBytes(d + "labels4.idx", idxBytes(0x08, {4}, {1, 2, 0, 1}));
    addIdx("idx: count mismatch", images, d + "labels4.idx", {images, d + "labels4.idx", "has 3 samples", "has 4"});

    writeBytes(d + "long.idx", idxBytes(0x08, {3, 2, 2}, noise(20, 4)));
    addIdx("idx: extra bytes", d + "long.idx", labels, {d + "long.idx", "8 bytes after the data", "expected 28"});

    writeBytes(d + "neg.idx", idxBytes(0x09, {3}, {1, 0xFF, 0}));
    addIdx("idx: negative label", images, d + "neg.idx", {d + "neg.idx", "label -1", "not a class index"});

    writeBytes(d + "4d.idx", idxBytes(0x08, {3, 1, 2, 2}, noise(12, 5)));
    addIdx("idx: 4-D images", d + "4d.idx", labels, {d + "4d.idx", "4 dimensions"});

    addRow("unknown format", "jpeg", images, labels, "error", {"unknown dataset format \"jpeg\""});
    addRow("bad on_error", "idx", images, labels, "ignore", {"on_error", "\"ignore\""});
    // Whole-file problems stop loading even when bad rows may be skipped.
    addRow("idx: truncated, skip mode", "idx", d + "short.idx", labels, "skip", {d + "short.idx", "truncated"});

    // ---- CSV --------------------------------------------------------------------------------
    d = folder();
    QVERIFY(writeGrayPng(d + "ok.png", 4, 4));
    QVERIFY(writeGrayPng(d + "wide.png", 5, 4));
    QVERIFY(writePng(d + "rgb.png", 4, 4, PNG_COLOR_TYPE_RGB, 8, [](int x, int y, int c) { return x + y + c; }));
    QVERIFY(writePng(d + "noisy.png", 32, 32, PNG_COLOR_TYPE_RGB, 8,
                     [](int x, int y, int c) { return (x * 7919 + y * 104729 + c * 31) % 251; }));
    {
      auto png = readBytes(d + "noisy.png");
      auto cut = png;
      cut.resize(png.size() * 6 / 10);
      writeBytes(d + "cut.png", cut);
      auto garbage = noise(200, 6);
      std::copy(png.begin(), png.begin() + 8, garbage.begin());  // a PNG signature, then nonsense
      writeBytes(d + "garbage.png", garbage);
      auto flipped = png;
      flipped[png.size() / 2] ^= 0xFF;  // inside IDAT: the chunk's CRC no longer matches
      writeBytes(d + "flipped.png", flipped);
    }
    writeText(d + "text.png", "not an image\n");
    writeBytes(d + "photo.png", {0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0});

    addCsv("csv: missing file", d + "nope.csv", {d + "nope.csv", "CSV file", "does not exist"});
    addCsv("csv: a folder", d.chopped(1), {d.chopped(1), "is a folder"});
    writeText(d + "empty.csv", "");
    addCsv("csv: empty file", d + "empty.csv", {d + "empty.csv", "is empty", "x:image,y:label"});
    writeText(d + "blank.csv", "\xEF\xBB\xBF\r\n\r\n  \n");
    addCsv("csv: only a BOM and blank lines", d + "blank.csv", {d + "blank.csv", "is empty"});
    writeText(d + "noy.csv", "x:image\nok.png\n");
    addCsv("csv: header without y", d + "noy.csv", {d + "noy.csv", "row 1", "no label column", "'y:label'"});
    writeText(d + "nox.csv", "image,y:label\nok.png,1\n");
    addCsv("csv: header without x", d + "nox.csv", {d + "nox.csv", "row 1", "no input column", "'x:image'"});
    writeText(d + "twox.csv", "x:image,x2:image,y:label\nok.png,ok.png,1\n");
    addCsv("csv: two input variables", d + "twox.csv", {d + "twox.csv", "several input variables"});
    writeText(d + "headeronly.csv", "x:image,y:label\r\n");
    addCsv("csv: header only", d + "headeronly.csv", {d + "headeronly.csv", "no data rows"});
    writeText(d + "short.csv", "x:image,y:label\nok.png,1\nok.png\n");
    addCsv("csv: short row", d + "short.csv", {d + "short.csv", "row 3 has 1 column, expected 2"});
    writeText(d + "longrow.csv", "x:image,y:label\nok.png,1,extra\n");
    addCsv("csv: long row", d + "longrow.csv", {d + "longrow.csv", "row 2 has 3 columns, expected 2"});
    writeText(d + "unclosed.csv", "x:image,y:label\nok.png,1\n\"ok.png,1\n");
    addCsv("csv: unclosed quote", d + "unclosed.csv", {d + "unclosed.csv", "line 3", "never closed"});
    writeText(d + "missing.csv", "x:image,y:label\nok.png,1\nimgs/missing.png,2\n");
    addCsv("csv: missing PNG", d + "missing.csv",
           {d + "missing.csv", "row 3, column 1 (x:image)", d + "imgs/missing.png", "does not exist"});
    writeText(d + "emptypath.csv", "x:image,y:label\nok.png,1\n,2\n");
    addCsv("csv: empty image path", d + "emptypath.csv", {d + "emptypath.csv", "row 3", "image path is empty"});
    writeText(d + "garbage.csv", "x:image,y:label\ngarbage.png,1\n");
    addCsv("csv: corrupt PNG", d + "garbage.csv", {d + "garbage.csv", "row 2", "cannot decode PNG", d + "garbage.png"});
    writeText(d + "cut.csv", "x:image,y:label\ncut.png,1\n");
    addCsv("csv: truncated PNG", d + "cut.csv",
           {d + "cut.csv", "row 2", "cannot decode PNG", d + "cut.png", "truncated", "libpng"});
    writeText(d + "flipped.csv", "x:image,y:label\nflipped.png,1\n");
    addCsv("csv: PNG with damaged data", d + "flipped.csv",
           {d + "flipped.csv", "row 2", "cannot decode PNG", d + "flipped.png"});
    writeText(d + "text.csv", "x:image,y:label\nok.png,0\ntext.png,1\n");
    addCsv("csv: text file named .png", d + "text.csv", {d + "text.csv", "row 3", d + "text.png", "is not a PNG file"});
    writeText(d + "jpeg.csv", "x:image,y:label\nphoto.png,1\n");
    addCsv("csv: JPEG named .png", d + "jpeg.csv", {d + "jpeg.csv", "row 2", "JPEG"});
    writeText(d + "size.csv", "x:image,y:label\nok.png,1\nok.png,2\nwide.png,0\n");
    addCsv(
        "csv: wrong PNG size", d + "size.csv",
        {d + "size.csv", "row 4", d + "wide.png", "is 5x4", "expected 4x4", "like the image in row 2", d + "ok.png"});
    writeText(d + "channels.csv", "x:image,y:label\nok.png,1\nrgb.png,2\n");
    addCsv("csv: RGB among grayscale", d + "channels.csv",
           {d + "channels.csv", "row 3", d + "rgb.png", "RGB", "expected 4x4 pixels (width x height), gray"});
    writeText(d + "cat.csv", "x:image,y:label\nok.png,1\nok.png,2\nok.png,3\nok.png,4\nok.png,5\nok.png,cat\n");
    addCsv("csv: label not a number", d + "cat.csv",
           {d + "cat.csv", "row 7, column 2 (y:label)", "label 'cat' is not a number"});
    writeText(d + "neg.csv", "x:image,y:label\nok.png,-1\n");
    addCsv("csv: negative label", d + "neg.csv", {d + "neg.csv", "row 2", "label '-1' is negative"});
    writeText(d + "frac.csv", "x:image,y:label\nok.png,1.5\n");
    addCsv("csv: non-integer label", d + "frac.csv", {d + "frac.csv", "row 2", "label '1.5' is not an integer"});
    writeText(d + "nolabel.csv", "x:image,y:label\nok.png,\n");
    addCsv("csv: empty label", d + "nolabel.csv", {d + "nolabel.csv", "row 2", "label '' is not a number"});
    writeText(d + "feat.csv", "x__0,x__1,y\n1,2,0\n3,abc,1\n");
    addCsv("csv: feature not a number", d + "feat.csv",
           {d + "feat.csv", "row 3, column 2 (x__1)", "value 'abc' is not a number"});
    writeText(d + "inf.csv", "x__0,x__1,y\n1,inf,0\n");
    addCsv("csv: infinite feature", d + "inf.csv", {d + "inf.csv", "row 2", "'inf' is not a number"});
    writeText(d + "huge.csv", "x__0,x__1,y\n1,2,0\n1,1e39,0\n");
    addCsv("csv: feature beyond float32", d + "huge.csv",
           {d + "huge.csv", "row 3, column 2 (x__1)", "value '1e39' is beyond float32's range"});
    writeText(d + "hugey.csv", "x__0,y__0,y__1\n1,2,0\n1,0,-4e38\n");
    addCsv("csv: target beyond float32", d + "hugey.csv",
           {d + "hugey.csv", "row 3", "value '-4e38' is beyond float32's range"});
    // The error names the first bad row in file order, whatever order the images decode in.
    writeText(d + "order.csv", "x:image,y:label\nok.png,1\nok.png,x\nmissing.png,1\ngarbage.png,1\n");
    addCsv("csv: first bad row is reported", d + "order.csv",
           {d + "order.csv", "row 3", "label 'x'", "!missing.png", "!row 4"});
    writeText(d + "allbad.csv", "x:image,y:label\nmissing.png,1\nok.png,cat\n");
    addCsv("csv: every row bad, skip mode", d + "allbad.csv",
           {d + "allbad.csv", "every one of the 2 data rows", "row 2", d + "missing.png", "row 3", "'cat'"}, "skip");
    addCsv("csv: header without y, skip mode", d + "noy.csv", {d + "noy.csv", "no label column"}, "skip");

    // ---- CSV structure and size (issue 14) ------------------------------------------------
    {
      // An unclosed quote at row 6 of 96 swallowed rows 6 to 96 as one cell; skip mode called it
      // "1 of 6 rows" and trained on 5 samples. It is fatal, and names where the quote opened.
      QByteArray rows = "x:image,y:label\n";
      for (int i = 2; i <= 96; ++i) rows += (i == 6 ? "\"ok.png,1\n" : "ok.png,1\n");
      writeText(d + "unclosed96.csv", rows);
      addCsv("csv: unclosed quote, skip mode", d + "unclosed96.csv",
             {d + "unclosed96.csv", "line 6", "never closed", "line 96", "!skipped"}, "skip");
      writeText(d + "unclosed2.csv", "x:image,y:label\n\"o\nk.png\",1\nok.png,\"1\nok.png,2\n");
      addCsv("csv: unclosed quote after a multi-line cell", d + "unclosed2.csv",
             {d + "unclosed2.csv", "line 4", "never closed", "!line 2:"}, "skip");
      writeText(d + "unclosedheader.csv", "x:image,\"y:label\nok.png,1\n");
      addCsv("csv: unclosed quote in the header", d + "unclosedheader.csv",
             {d + "unclosedheader.csv", "line 1", "never closed"});
      // A cell over the limit is quoted in part, with its length (Note [CSV limits]).
      writeText(d + "longcell.csv", "x:image,y:label\nok.png,1\nok.png," + QByteArray(100000, '7') + "\n");
      addCsv("csv: 100 KB cell", d + "longcell.csv",
             {d + "longcell.csv", "row 3, column 2 (y:label)", "100000 bytes", "65536", QString(100, '7'),
              "!" + QString(101, '7')});
      writeText(d + "longheader.csv", "x:image,y" + QByteArray(70000, 'y') + "\nok.png,1\n");
      addCsv("csv: 70 KB header cell", d + "longheader.csv",
             {d + "longheader.csv", "row 1", "column 2", "70001 bytes", "!" + QString(200, 'y')});
      writeText(d + "longpath.csv", "x:image,y:label\n" + QByteArray(5000, 'p') + ".png,1\n");
      addCsv("csv: 5 KB image path", d + "longpath.csv",
             {d + "longpath.csv", "row 2", "5004 bytes", "longer than a path can be", "!" + QString(200, 'p')});
      // A line over the limit is not split into cells at all.
      writeText(d + "longline.csv", "x__0,y\n1,0\n" + QByteArray(17 << 20, '1') + ",0\n");
      addCsv("csv: 17 MB line", d + "longline.csv",
             {d + "longline.csv", "row 3 is 17825794 bytes long", "16777216", "!" + QString(101, '1')});
    }

    // ---- PNG colour types and damage ----------------------------------------------------------
    d = folder();
    QVERIFY(writeGrayPng(d + "gray.png", 4, 4));
    QVERIFY(writePng(d + "rgba.png", 4, 4, PNG_COLOR_TYPE_RGBA, 8, [](int x, int, int c) { return x * 10 + c; }));
    QVERIFY(writePng(d + "ga.png", 4, 4, PNG_COLOR_TYPE_GRAY_ALPHA, 8, [](int x, int, int c) { return x + c; }));
    QVERIFY(writePng(d + "rgb.png", 4, 4, PNG_COLOR_TYPE_RGB, 8, [](int x, int y, int c) { return x + y + c; }));
    QVERIFY(writePalettePng(d + "palette.png", 4, 4));
    writeText(d + "rgba.csv", "x:image,y:label\ngray.png,1\nrgba.png,0\n");
    addCsv("png: RGBA among gray", d + "rgba.csv",
           {d + "rgba.csv", "row 3", d + "rgba.png", "RGBA (read as 3 channels: alpha is dropped)",
            "expected 4x4 pixels (width x height), gray (1 channel)"});
    writeText(d + "palette.csv", "x:image,y:label\ngray.png,1\npalette.png,0\n");
    addCsv("png: palette among gray", d + "palette.csv", {d + "palette.csv", "row 3", d + "palette.png", "palette"});
    writeText(d + "ga.csv", "x:image,y:label\nrgb.png,1\nga.png,0\n");
    addCsv("png: gray+alpha among RGB", d + "ga.csv",
           {d + "ga.csv", "row 3", d + "ga.png", "gray+alpha (read as 1 channel: alpha is dropped)",
            "expected 4x4 pixels (width x height), RGB (3 channels)"});
    {
      const auto png = readBytes(d + "rgb.png");
      writeBytes(d + "cut.png", std::vector<uint8_t>(png.begin(), png.begin() + static_cast<long>(png.size() - 20)));
      writeBytes(d + "sig.png", std::vector<uint8_t>(png.begin(), png.begin() + 5));
      writeBytes(d + "zero.png", {});
    }
    writeText(d + "cut.csv", "x:image,y:label\ncut.png,1\n");
    addCsv("png: truncated", d + "cut.csv",
           {d + "cut.csv", "row 2", d + "cut.png", "truncated", "libpng: Read Error"});
    writeText(d + "sig.csv", "x:image,y:label\nsig.png,1\n");
    addCsv("png: cut inside the signature", d + "sig.csv", {d + "sig.csv", d + "sig.png", "truncated", "5 bytes"});
    writeText(d + "zero.csv", "x:image,y:label\nzero.png,1\n");
    addCsv("png: empty file", d + "zero.csv", {d + "zero.csv", d + "zero.png", "is empty"});
  }

  void brokenDatasets() {
    QFETCH(QString, format);
    QFETCH(QString, first);
    QFETCH(QString, second);
    QFETCH(QString, onError);
    QFETCH(QStringList, expected);
    DataSourceSpec spec;
    spec.format = format.toStdString();
    if (format == "csv") {
      spec.csv = first.toStdString();
    } else {
      spec.images = first.toStdString();
      spec.labels = second.toStdString();
    }
    QString message;
    try {
      const Dataset ds = loadDataSource(spec, 1.0 / 255, onError.toStdString());
      QFAIL(qPrintable(QString("no error; loaded %1 samples").arg(ds.size)));
    } catch (const Error& e) {
      message = QString::fromStdString(e.what());
    }
    qInfo("%s", qPrintable(message));  // the log shows every message as a user would read it
    for (const QString& part : expected) {
      if (part.startsWith('!'))
        QVERIFY2(!message.contains(part.mid(1)), qPrintable(QString("'%1' in: %2").arg(part.mid(1), message)));
      else
        QVERIFY2(message.contains(part), qPrintable(QString("no '%1' in: %2").arg(part, message)));
    }
    QVERIFY2(!message.endsWith('\n'), qPrintable(message));
    // Whatever the file holds, a message quotes little of it (Note [CSV limits]).
    QVERIFY2(message.size() < 2000, qPrintable(QString("%1 characters").arg(message.size())));
  }

  // on_error "skip" with a cell far over the limit: the row is skipped, and the warning quotes
  // 100 characters of it, not the megabyte (it was echoed whole: 100 MB of stderr and events).
  void skipModeQuotesLongCellsInPart() {
    const QString d = folder();
    QVERIFY(writeGrayPng(d + "a.png", 4, 4));
    writeText(d + "big.csv", "x:image,y:label\na.png,1\n" + QByteArray(1 << 20, 'z') + ",2\na.png,0\n");
    const Dataset ds = loadDataSource(csvSpec(d + "big.csv"), 1.0, "skip");
    QCOMPARE(ds.size, 2);
    const QString w = QString::fromStdString(ds.warnings.at(0));
    QVERIFY2(w.size() < 1000, qPrintable(QString("%1 characters").arg(w.size())));
    QVERIFY2(w.contains("skipped 1 of 3 rows") && w.contains("row 3") && w.contains("1048576 bytes"), qPrintable(w));
  }

  // on_error "skip": bad rows are left out, the rest load in order, and one warning names every
  // skipped row with its file and reason.
  void skipModeListsEverySkippedRow() {
    const QString d = folder();
    QVERIFY(writeGrayPng(d + "a.png", 4, 4, 0));
    QVERIFY(writeGrayPng(d + "b.png", 4, 4, 100));
    QVERIFY(writeGrayPng(d + "wide.png", 5, 4));
    writeText(d + "garbage.png", "\x89PNG\r\n\x1a\nnonsense nonsense nonsense");
    writeText(d + "mixed.csv",
              "x:image,y:label\n"
              "a.png,1\n"          // row 2: good
              "missing.png,2\n"    // row 3: no such file
              "a.png,cat\n"        // row 4: label
              "wide.png,1\n"       // row 5: size
              "a.png\n"            // row 6: short
              "b.png,3\n"          // row 7: good
              "garbage.png,0\n");  // row 8: corrupt
    const Dataset ds = loadDataSource(csvSpec(d + "mixed.csv"), 1.0, "skip");
    QCOMPARE(ds.size, 2);
    QCOMPARE(ds.labels, (std::vector<float>{1, 3}));
    QCOMPARE(ds.sampleValues(1)[0], 100.0f);
    QCOMPARE(ds.numClasses, 4);
    QCOMPARE(ds.warnings.size(), size_t{1});
    const QString w = QString::fromStdString(ds.warnings.front());
    QVERIFY2(!w.contains('\n'), qPrintable(w));
    for (const QString& part :
         {d + "mixed.csv", QString("skipped 5 of 7 rows"), QString("row 3"), d + "missing.png", QString("row 4"),
          QString("'cat'"), QString("row 5"), d + "wide.png", QString("row 6"), QString("row 8"), d + "garbage.png"})
      QVERIFY2(w.contains(part), qPrintable(QString("no '%1' in: %2").arg(part, w)));
    QVERIFY2(!w.contains("row 7"), qPrintable(w));
  }

  // The size every image must have comes from the first row that decodes, not the first row.
  void skipModeTakesSizeFromFirstGoodRow() {
    const QString d = folder();
    QVERIFY(writeGrayPng(d + "a.png", 4, 4));
    QVERIFY(writeGrayPng(d + "wide.png", 5, 4));
    writeText(d + "s.csv", "x:image,y:label\nmissing.png,0\nwide.png,1\na.png,2\nwide.png,3\n");
    const Dataset ds = loadDataSource(csvSpec(d + "s.csv"), 1.0, "skip");
    QCOMPARE(ds.size, 2);
    QCOMPARE(ds.sampleShape, (Shape{1, 4, 5}));
    QCOMPARE(ds.labels, (std::vector<float>{1, 3}));
    const QString w = QString::fromStdString(ds.warnings.at(0));
    QVERIFY2(w.contains("skipped 2 of 4 rows") && w.contains("row 2") && w.contains("row 4") &&
                 w.contains("like the image in row 3"),
             qPrintable(w));
  }

  void skipModeNumericRows() {
    const QString d = folder();
    writeText(d + "n.csv", "x__0,x__1,y\n1,2,0\n3,oops,1\n5,6\n7,8,2\n");
    const Dataset ds = loadDataSource(csvSpec(d + "n.csv"), 1.0, "skip");
    QCOMPARE(ds.size, 2);
    QCOMPARE(datasetValues(ds), (std::vector<float>{1, 2, 7, 8}));
    const QString w = QString::fromStdString(ds.warnings.at(0));
    QVERIFY2(w.contains("row 3") && w.contains("'oops'") && w.contains("row 4 has 2 columns, expected 3"),
             qPrintable(w));
  }

  // A clean file in skip mode gives no warning.
  void skipModeWithoutProblems() {
    const QString d = folder();
    writeText(d + "ok.csv", "x,y\n1,0\n2,1\n");
    const Dataset ds = loadDataSource(csvSpec(d + "ok.csv"), 1.0, "skip");
    QCOMPARE(ds.size, 2);
    QVERIFY(ds.warnings.empty());
  }
};

QTEST_GUILESS_MAIN(TestDatasetErrors)
#include "tst_dataset_errors.moc"
