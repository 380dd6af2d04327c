// CSV reader (Neural Network Console style) with PNG images written here by libpng.
// netsmith-test-labels: asan

#include <QtTest>

#include "support/dataset_values.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "unit/dataset_test_files.h"

using namespace netsmith;
using namespace netsmith::testing;

namespace {
// Expected value of a grayscale test image written by writeGrayPng(base).
float grayValue(int base, int width, int x, int y, double scale) {
  return static_cast<float>(((base + y * width + x) % 256) * scale);
}
}  // namespace

class TestDatasetCsv : public QObject {
  Q_OBJECT

 private slots:
  void grayscaleImages() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("images/train"));
    // 4 wide, 3 high: the shape must come out as {1, H, W} = {1, 3, 4}.
    for (int i = 0; i < 3; ++i)
      QVERIFY(writeGrayPng(dir.filePath(QString("images/train/%1.png").arg(i)), 4, 3, i * 20));
    writeText(dir.filePath("train.csv"),
              "x:image,y:label\n"
              "./images/train/0.png,2\n"
              "images/train/1.png,0\n"
              "images/train/2.png,7\n");
    const double scale = 1.0 / 255.0;
    const Dataset ds = loadDataSource(csvSpec(dir.filePath("train.csv")), scale, "error");
    QCOMPARE(ds.size, 3);
    QCOMPARE(ds.sampleShape, (Shape{1, 3, 4}));
    QCOMPARE(datasetValues(ds).size(), size_t{36});
    QCOMPARE(ds.labelWidth, 1);
    QCOMPARE(ds.labels, (std::vector<float>{2, 0, 7}));
    QCOMPARE(ds.numClasses, 8);
    QVERIFY(ds.warnings.empty());
    QCOMPARE(ds.source, dir.filePath("train.csv").toStdString());
    for (int i = 0; i < 3; ++i)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x) QCOMPARE(ds.sampleValues(i)[y * 4 + x], grayValue(i * 20, 4, x, y, scale));
  }

  // Channels come out planar (CHW): all red, then all green, then all blue.
  void rgbImagesArePlanar() {
    QTemporaryDir dir;
    auto rgb = [](int x, int y, int c) { return c * 100 + y * 10 + x; };
    QVERIFY(writePng(dir.filePath("a.png"), 3, 2, PNG_COLOR_TYPE_RGB, 8, rgb));
    QVERIFY(writePng(dir.filePath("b.png"), 3, 2, PNG_COLOR_TYPE_RGB, 8, rgb, /*interlaced=*/true));
    writeText(dir.filePath("d.csv"), "x:image,y:label\na.png,1\nb.png,0\n");
    const Dataset ds = loadDataSource(csvSpec(dir.filePath("d.csv")), 1.0, "error");
    QCOMPARE(ds.sampleShape, (Shape{3, 2, 3}));
    for (int i = 0; i < 2; ++i)
      for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 2; ++y)
          for (int x = 0; x < 3; ++x) QCOMPARE(ds.sampleValues(i)[c * 6 + y * 3 + x], static_cast<float>(rgb(x, y, c)));
  }

  // Alpha is dropped; 16-bit samples are brought to the 8-bit range; palette images become RGB.
  void otherPngKinds() {
    QTemporaryDir dir;
    QVERIFY(writePng(dir.filePath("rgba.png"), 2, 2, PNG_COLOR_TYPE_RGBA, 8,
                     [](int x, int y, int c) { return c == 3 ? 7 : 50 * c + x + 2 * y; }));
    QVERIFY(writePng(dir.filePath("ga.png"), 2, 2, PNG_COLOR_TYPE_GRAY_ALPHA, 8,
                     [](int x, int y, int c) { return c == 1 ? 0 : 10 + x + 2 * y; }));
    QVERIFY(writePng(dir.filePath("g16.png"), 2, 2, PNG_COLOR_TYPE_GRAY, 16,
                     [](int x, int y, int) { return 257 * (100 + x + 2 * y); }));
    QVERIFY(writePng(dir.filePath("g16b.png"), 2, 2, PNG_COLOR_TYPE_GRAY, 16, [](int, int, int) { return 65535; }));

    writeText(dir.filePath("rgba.csv"), "x:image,y:label\nrgba.png,0\n");
    const Dataset rgba = loadDataSource(csvSpec(dir.filePath("rgba.csv")), 1.0, "error");
    QCOMPARE(rgba.sampleShape, (Shape{3, 2, 2}));
    QCOMPARE(datasetValues(rgba), (std::vector<float>{0, 1, 2, 3, 50, 51, 52, 53, 100, 101, 102, 103}));

    writeText(dir.filePath("ga.csv"), "x:image,y:label\nga.png,0\n");
    const Dataset ga = loadDataSource(csvSpec(dir.filePath("ga.csv")), 1.0, "error");
    QCOMPARE(ga.sampleShape, (Shape{1, 2, 2}));
    QCOMPARE(datasetValues(ga), (std::vector<float>{10, 11, 12, 13}));

    writeText(dir.filePath("g16.csv"), "x:image,y:label\ng16.png,0\ng16b.png,1\n");
    const Dataset g16 = loadDataSource(csvSpec(dir.filePath("g16.csv")), 0.5, "error");
    QCOMPARE(g16.sampleShape, (Shape{1, 2, 2}));
    for (int i = 0; i < 4; ++i) QCOMPARE(datasetValues(g16)[i], (100 + i) * 0.5f);
    for (int i = 4; i < 8; ++i) QCOMPARE(datasetValues(g16)[i], 255 * 0.5f);

    // A palette PNG with two colours.
    {
      std::FILE* file = std::fopen(dir.filePath("pal.png").toStdString().c_str(), "wb");
      QVERIFY(file);
      png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
      png_infop info = png_create_info_struct(png);
      png_init_io(png, file);
      png_set_IHDR(png, info, 2, 1, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                   PNG_FILTER_TYPE_DEFAULT);
      png_color palette[2] = {{10, 20, 30}, {200, 150, 100}};
      png_set_PLTE(png, info, palette, 2);
      png_write_info(png, info);
      png_byte row[2] = {1, 0};
      png_write_row(png, row);
      png_write_end(png, nullptr);
      png_destroy_write_struct(&png, &info);
      std::fclose(file);
    }
    writeText(dir.filePath("pal.csv"), "x:image,y:label\npal.png,0\n");
    const Dataset pal = loadDataSource(csvSpec(dir.filePath("pal.csv")), 1.0, "error");
    QCOMPARE(pal.sampleShape, (Shape{3, 1, 2}));
    QCOMPARE(datasetValues(pal), (std::vector<float>{200, 10, 150, 20, 100, 30}));
  }

  void absolutePathsAndLabelFirst() {
    QTemporaryDir dir, other;
    QVERIFY(writeGrayPng(other.filePath("img.png"), 2, 2, 5));
    writeText(dir.filePath("d.csv"), ("y:label,x:image\n3," + other.filePath("img.png") + "\n").toUtf8());
    const Dataset ds = loadDataSource(csvSpec(dir.filePath("d.csv")), 1.0, "error");
    QCOMPARE(ds.size, 1);
    QCOMPARE(ds.labels, (std::vector<float>{3}));
    QCOMPARE(datasetValues(ds), (std::vector<float>{5, 6, 7, 8}));
  }

  // NNC writes vector inputs as x__0, x__1, ...; columns that are neither x nor y are ignored.
  void numericFeatures() {
    QTemporaryDir dir;
    writeText(dir.filePath("v.csv"),
              "x__0:a,x__1:b,x__2:c,note,y:class\n"
              "1,2,3,first,0\n"
              "-1.5,0.25,1e2,,4\n");
    const Dataset ds = loadDataSource(csvSpec(dir.filePath("v.csv")), 2.0, "error");
    QCOMPARE(ds.size, 2);
    QCOMPARE(ds.sampleShape, (Shape{3}));
    QCOMPARE(datasetValues(ds), (std::vector<float>{2, 4, 6, -3, 0.5f, 200}));  // scale applied to numbers too
    QCOMPARE(ds.labels, (std::vector<float>{0, 4}));
    QCOMPARE(ds.numClasses, 5);

    writeText(dir.filePath("s.csv"), "x,y\n0.5,1\n2,0\n");
    const Dataset scalar = loadDataSource(csvSpec(dir.filePath("s.csv")), 1.0, "error");
    QCOMPARE(scalar.sampleShape, (Shape{1}));
    QCOMPARE(datasetValues(scalar), (std::vector<float>{0.5f, 2}));
  }

  // Several y columns: a target vector per sample, any real values, no classes.
  void vectorLabels() {
    QTemporaryDir dir;
    writeText(dir.filePath("r.csv"), "x__0,x__1,y__0,y__1\n1,2,0.5,-3\n3,4,1.25,7\n");
    const Dataset ds = loadDataSource(csvSpec(dir.filePath("r.csv")), 1.0, "error");
    QCOMPARE(ds.labelWidth, 2);
    QCOMPARE(ds.labels, (std::vector<float>{0.5f, -3, 1.25f, 7}));
    QCOMPARE(ds.numClasses, 0);
    QCOMPARE(*ds.label(1), 1.25f);
  }

  // Quoted cells (a comma and a doubled quote inside a path, a quoted label), CRLF line ends,
  // a UTF-8 byte order mark, spaces around cells and trailing empty lines.
  void quotingAndLineEnds() {
    QTemporaryDir dir;
    QVERIFY(writeGrayPng(dir.filePath("img, 1.png"), 2, 1, 1));
    QVERIFY(writeGrayPng(dir.filePath("say \"hi\".png"), 2, 1, 50));
    QVERIFY(writeGrayPng(dir.filePath("plain.png"), 2, 1, 100));
    writeText(dir.filePath("q.csv"),
              "\xEF\xBB\xBF\"x:image\",\"y:label\"\r\n"
              "\"img, 1.png\",\"3\"\r\n"
              "\"say \"\"hi\"\".png\",1\r\n"
              "  plain.png , 2 \r\n"
              "\r\n"
              "\r\n");
    const Dataset ds = loadDataSource(csvSpec(dir.filePath("q.csv")), 1.0, "error");
    QCOMPARE(ds.size, 3);
    QCOMPARE(ds.labels, (std::vector<float>{3, 1, 2}));
    QCOMPARE(datasetValues(ds), (std::vector<float>{1, 2, 50, 51, 100, 101}));
  }

  // A quoted cell may span lines; the rows after it keep their true line numbers in messages.
  void multilineQuotedCellKeepsLineNumbers() {
    QTemporaryDir dir;
    writeText(dir.filePath("m.csv"), "x__0,x__1,note,y\n1,2,\"two\nlines\",0\n3,4,x,cat\n");
    try {
      loadDataSource(csvSpec(dir.filePath("m.csv")), 1.0, "error");
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("row 4"), e.what());
    }
  }

  // Note [Class names in a CSV]: a class_name column names each label; classes.txt, when there
  // is one, is read instead; a label named two ways, or two labels named alike, is an error.
  void classNameColumnNamesTheClasses() {
    QTemporaryDir dir;
    writeText(dir.filePath("n.csv"), "x__0,y,class_name\n1,2,bird\n2,0,cat\n3,2,bird\n");
    const Dataset ds = loadDataSource(csvSpec(dir.filePath("n.csv")), 1.0, "error");
    QCOMPARE(ds.labelWidth, 1);  // the name column is not a label
    QVERIFY(ds.classNames == (std::vector<std::string>{"cat", "1", "bird"}));
    writeText(dir.filePath("classes.txt"), "kitten\ndog\nsparrow\n");
    const Dataset named = loadDataSource(csvSpec(dir.filePath("n.csv")), 1.0, "error");
    QVERIFY(named.classNames == (std::vector<std::string>{"kitten", "dog", "sparrow"}));
    QVERIFY(QFile::remove(dir.filePath("classes.txt")));
    writeText(dir.filePath("n.csv"), "x__0,y,class_name\n1,2,bird\n2,0,cat\n3,2,crow\n");
    try {
      loadDataSource(csvSpec(dir.filePath("n.csv")), 1.0, "error");
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("row 4: label 2 is named 'crow', but row 2 named it 'bird'"), e.what());
    }
    writeText(dir.filePath("n.csv"), "x__0,y,name\n1,1,bird\n2,0,bird\n");
    try {
      loadDataSource(csvSpec(dir.filePath("n.csv")), 1.0, "error");
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("labels 0 and 1 are both named 'bird'"), e.what());
    }
  }

  // Many rows decoded in parallel come out in file order.
  void manyRowsKeepFileOrder() {
    QTemporaryDir dir;
    QByteArray csv = "x:image,y:label\n";
    const int n = 300;
    for (int i = 0; i < n; ++i) {
      QVERIFY(writeGrayPng(dir.filePath(QString("%1.png").arg(i)), 5, 4, i));
      csv += QString("%1.png,%2\n").arg(i).arg(i % 10).toUtf8();
    }
    writeText(dir.filePath("big.csv"), csv);
    const Dataset ds = loadDataSource(csvSpec(dir.filePath("big.csv")), 1.0, "error");
    QCOMPARE(ds.size, n);
    QCOMPARE(ds.numClasses, 10);
    for (int i = 0; i < n; ++i) {
      QCOMPARE(*ds.label(i), static_cast<float>(i % 10));
      QCOMPARE(ds.sampleValues(i)[0], static_cast<float>(i % 256));
      QCOMPARE(ds.sampleValues(i)[19], static_cast<float>((i + 19) % 256));
    }
  }
};

QTEST_GUILESS_MAIN(TestDatasetCsv)
#include "tst_dataset_csv.moc"
