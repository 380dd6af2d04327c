// netsmith-cli dataset create (engine/data/folder/, Note [Folder dataset]): a folder of PNG and JPEG
// images of every kind with junk among them, made in the test, through the command line and the
// engine API: the CSV rows and labels, classes.txt, the report's skipped files and duplicates, the
// stores against the CSVs, image sizes, the stratified split and its seed, the train/val layout,
// flags, overwrite rules, cancellation and kills, an untouched source, and a project training on
// the result.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>
#include <map>
#include <set>

#include "engine/core/sha256.h"
#include "engine/data/dataset.h"
#include "engine/data/folder/dataset_builder.h"
#include "engine/data/image/image.h"
#include "engine/data/sample_store.h"
#include "support/cli_runner.h"
#include "unit/image_test_files.h"

using namespace netsmith;
using namespace netsmith::test;
using namespace netsmith::testing;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeAll(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
  f.write(bytes);
}

struct Row {
  QString image;
  int label;
};

// A CSV written by dataset create: the header, then "path,label" rows (no quoting needed here).
std::vector<Row> readRows(const QString& csv) {
  std::vector<Row> rows;
  const QList<QByteArray> lines = readAll(csv).split('\n');
  if (lines.isEmpty() || lines[0] != "x:image,y:label") return rows;
  for (int i = 1; i < lines.size(); ++i) {
    if (lines[i].isEmpty()) continue;
    const int comma = lines[i].lastIndexOf(',');
    rows.push_back({QString::fromUtf8(lines[i].left(comma)), lines[i].mid(comma + 1).toInt()});
  }
  return rows;
}

// Every file and folder below `root` (hidden ones too): path, type, size, mode, mtime, SHA-256.
QString treeFingerprint(const QString& root) {
  QStringList lines;
  QDirIterator it(root, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString path = it.next();
    struct stat st;
    if (::lstat(path.toLocal8Bit().constData(), &st) != 0) continue;
    QString line = QDir(root).relativeFilePath(path) + QString(" %1 %2 %3 %4.%5")
                                                           .arg(st.st_mode)
                                                           .arg(static_cast<qint64>(st.st_size))
                                                           .arg(static_cast<qint64>(st.st_mtim.tv_sec))
                                                           .arg(static_cast<qint64>(st.st_mtim.tv_nsec))
                                                           .arg(static_cast<qint64>(st.st_ino));
    if (S_ISREG(st.st_mode)) {
      const QByteArray bytes = readAll(path);
      line += " " + QString::fromStdString(sha256Hex(bytes.constData(), static_cast<size_t>(bytes.size())));
    }
    lines << line;
  }
  lines.sort();
  return lines.join('\n');
}

// Distinct for every seed below 65536 (the first two pixels spell it), so no two images are duplicates.
int pattern(int seed, int x, int y, int c) {
  if (y == 0 && x < 2) return x == 0 ? seed & 255 : (seed >> 8) & 255;
  return (seed * 37 + x * 5 + y * 3 + c * 70) % 256;
}

bool rgbPng(const QString& path, int w, int h, int seed) {
  PngSpec s;
  s.width = w;
  s.height = h;
  return writePngFile(path, s, [=](int x, int y, int c) { return pattern(seed, x, y, c); });
}

bool rgbJpeg(const QString& path, int w, int h, int seed, bool progressive = false, std::vector<uint8_t> app1 = {}) {
  JpegSpec s;
  s.width = w;
  s.height = h;
  s.progressive = progressive;
  s.app1 = std::move(app1);
  return writeJpegFile(path, s, [=](int x, int y, int c) { return pattern(seed, x, y, c); });
}

QStringList names(const QString& dir) { return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot); }

QStringList partialFolders(const QString& parent) {
  return QDir(parent).entryList({".*.partial-*"}, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

// A size x size 16-bit RGBA PNG, written row by row (the whole image would be 512 MiB at 8192):
// a flat colour, `seed` in the first pixel, so that files differ. It compresses to about 0.5 MB.
bool writeHugeRgba16Png(const QString& path, int size, int seed) {
  std::FILE* file = std::fopen(path.toStdString().c_str(), "wb");
  if (!file) return false;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  std::vector<uint8_t> row(static_cast<size_t>(size) * 8, 0x80);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    return false;
  }
  png_init_io(png, file);
  png_set_filter(png, 0, PNG_FILTER_NONE);
  png_set_IHDR(png, info, size, size, 16, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < size; ++y) {
    row[0] = static_cast<uint8_t>(y == 0 ? seed : 0x80);
    png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return std::fclose(file) == 0;
}

}  // namespace

class DatasetCreateTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_tmp;
  QString m_source;       // class folders with junk
  QString m_fingerprint;  // of m_source before any run
  QString m_out;          // the dataset of the default run
  const bool m_root = ::geteuid() == 0;

  QString path(const QString& rel) const { return m_tmp.filePath(rel); }

  CliRun create(const QStringList& args) { return runCli(QStringList{"dataset", "create"} + args, 120000); }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    m_source = path("source");
    const QString bird = m_source + "/bird", cat = m_source + "/cat", dog = m_source + "/dog";
    for (const QString& d : {bird, cat + "/nested/deeper", dog + "/.cache"}) QVERIFY(QDir().mkpath(d));

    // bird: every kind of PNG, 40x30 (one wider); the class has 11 images.
    QVERIFY(rgbPng(bird + "/rgb8.png", 40, 30, 1));
    auto png = [](int type, int depth, bool interlaced) {
      PngSpec s;
      s.width = 40;
      s.height = 30;
      s.colorType = type;
      s.bitDepth = depth;
      s.interlaced = interlaced;
      if (type == PNG_COLOR_TYPE_PALETTE) {
        for (int k = 0; k < 16; ++k)
          s.palette.push_back(png_color{static_cast<png_byte>(k * 16), static_cast<png_byte>(255 - k * 16), 80});
      }
      const int max = depth == 16 ? 65535 : (1 << depth) - 1;
      return std::pair{s, max};
    };
    struct Kind {
      const char* name;
      int type, depth;
      bool interlaced, trns;
    };
    for (const Kind& k : {Kind{"rgba8.png", PNG_COLOR_TYPE_RGBA, 8, false, false},
                          Kind{"rgb16.png", PNG_COLOR_TYPE_RGB, 16, false, false},
                          Kind{"gray8.png", PNG_COLOR_TYPE_GRAY, 8, false, false},
                          Kind{"graya8.png", PNG_COLOR_TYPE_GRAY_ALPHA, 8, false, false},
                          Kind{"gray16.png", PNG_COLOR_TYPE_GRAY, 16, false, false},
                          Kind{"gray2bit.png", PNG_COLOR_TYPE_GRAY, 2, false, false},
                          Kind{"palette.png", PNG_COLOR_TYPE_PALETTE, 4, false, false},
                          Kind{"palette_trns.png", PNG_COLOR_TYPE_PALETTE, 8, false, true},
                          Kind{"interlaced.png", PNG_COLOR_TYPE_RGB, 8, true, false}}) {
      auto [spec, max] = png(k.type, k.depth, k.interlaced);
      if (k.trns) spec.paletteAlpha = {0, 128};
      const int paletteSize = static_cast<int>(spec.palette.size());
      QVERIFY2(writePngFile(bird + "/" + k.name, spec,
                            [&](int x, int y, int c) {
                              if (k.type == PNG_COLOR_TYPE_PALETTE) return (x + y) % paletteSize;
                              return static_cast<int>((static_cast<int64_t>(pattern(7, x, y, c)) * max) / 255);
                            }),
               k.name);
    }
    QVERIFY(rgbPng(bird + "/wide.png", 80, 30, 2));

    // cat: JPEGs, baseline, progressive, EXIF-turned (stored 30x40, shown 40x30), gray, nested, upper case.
    for (int i = 0; i < 6; ++i) QVERIFY(rgbJpeg(cat + QString("/baseline%1.jpg").arg(i), 40, 30, 10 + i));
    QVERIFY(rgbJpeg(cat + "/progressive.jpg", 40, 30, 20, true));
    {
      // Stored 30 wide, 40 high, its top rows red; orientation 6 turns it clockwise, so the red
      // rows end on the right.
      JpegSpec s;
      s.width = 30;
      s.height = 40;
      s.app1 = exifWithOrientation(6, false);
      QVERIFY(writeJpegFile(cat + "/exif6.jpg", s, [](int, int y, int c) { return y < 10 ? (c == 0 ? 250 : 5) : 128; }));
    }
    {
      JpegSpec s;
      s.width = 40;
      s.height = 30;
      s.components = 1;
      QVERIFY(writeJpegFile(cat + "/gray.jpg", s, [](int x, int y, int) { return (x * 6 + y) % 256; }));
    }
    QVERIFY(rgbJpeg(cat + "/nested/deeper/inner.JPEG", 40, 30, 30));
    QVERIFY(rgbJpeg(cat + "/UPPER.JPG", 40, 30, 31));

    // dog: 8 good PNGs and the junk.
    for (int i = 0; i < 8; ++i) QVERIFY(rgbPng(dog + QString("/d%1.png").arg(i), 40, 30, 40 + i));
    QVERIFY(QFile::copy(bird + "/rgb8.png", dog + "/dup.png"));
    QVERIFY(rgbPng(dog + "/.hidden.png", 40, 30, 50));
    QVERIFY(rgbPng(dog + "/.cache/cached.png", 40, 30, 51));
    writeAll(dog + "/empty.png", {});
    const QByteArray goodPng = readAll(dog + "/d0.png");
    writeAll(dog + "/truncated.png", goodPng.left(goodPng.size() / 2));
    const QByteArray goodJpeg = readAll(cat + "/baseline0.jpg");
    writeAll(dog + "/truncated.jpg", goodJpeg.left(goodJpeg.size() / 2));
    writeAll(dog + "/text.jpg", "this is a text file, not a picture\n");
    writeAll(dog + "/notes.txt", "dogs\n");
    if (!m_root) {
      QVERIFY(rgbPng(dog + "/noperm.png", 40, 30, 52));
      QVERIFY(QFile::setPermissions(dog + "/noperm.png", QFileDevice::Permissions()));
    }
    writeAll(m_source + "/README.txt", "not in a class folder\n");
    m_fingerprint = treeFingerprint(m_source);

    m_out = path("out");
    const CliRun r = create({m_source, "--output", m_out});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
  }

  void writesTheFilesOfTheDataset() {
    for (const char* f : {"training.csv", "validation.csv", "training.nsstore", "validation.nsstore", "classes.txt",
                          "report.txt", "dataset.json", "images"})
      QVERIFY2(QFileInfo::exists(m_out + "/" + f), f);
    QCOMPARE(readAll(m_out + "/classes.txt"), QByteArray("bird\ncat\ndog\n"));
    QVERIFY(isFolderDataset(m_out.toStdString()));
    QVERIFY(partialFolders(m_tmp.path()).isEmpty());
    QVERIFY(!QFileInfo::exists(m_out + "/.samples.tmp"));
  }

  void rowsLabelsAndStratifiedSplit() {
    const auto train = readRows(m_out + "/training.csv"), val = readRows(m_out + "/validation.csv");
    const std::map<QString, int> labelOf{{"bird", 0}, {"cat", 1}, {"dog", 2}};
    std::map<int, int> trainCount, valCount;
    std::set<QString> seen;
    for (const auto* rows : {&train, &val})
      for (const Row& r : *rows) {
        QVERIFY2(r.image.startsWith("images/"), qPrintable(r.image));
        QVERIFY2(r.image.endsWith(".png"), qPrintable(r.image));
        const QString cls = r.image.section('/', 1, 1);
        QCOMPARE(r.label, labelOf.at(cls));
        QVERIFY2(seen.insert(r.image).second, qPrintable(r.image));
        (rows == &train ? trainCount : valCount)[r.label] += 1;
      }
    // bird 11 and cat 11 usable: 2 for validation each (round(2.2)); dog 8: 2 (round(1.6)).
    QCOMPARE(trainCount[0], 9);
    QCOMPARE(valCount[0], 2);
    QCOMPARE(trainCount[1], 9);
    QCOMPARE(valCount[1], 2);
    QCOMPARE(trainCount[2], 6);
    QCOMPARE(valCount[2], 2);
    // Rows in label order, then by path; the nested JPEG keeps its folders; names end in .png.
    for (size_t k = 1; k < train.size(); ++k) QVERIFY(train[k - 1].label <= train[k].label);
    QVERIFY(seen.count("images/cat/nested/deeper/inner.png"));
    QVERIFY(seen.count("images/cat/UPPER.png"));
    QVERIFY(seen.count("images/bird/rgb16.png"));
    QVERIFY(!seen.count("images/dog/dup.png"));
  }

  void imagesHaveTheMostCommonSizeAndColour() {
    // 40x30 is the most common shown size (the EXIF-turned JPEG counts as 40x30); colour images
    // exist, so 3 channels.
    int count = 0;
    QDirIterator it(m_out + "/images", {"*.png"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
      const QString p = it.next();
      Image img;
      std::string error;
      QVERIFY2(decodeImage(p.toStdString(), img, error), error.c_str());
      QCOMPARE(img.width, 40);
      QCOMPARE(img.height, 30);
      QCOMPARE(img.channels, 3);
      ++count;
    }
    QCOMPARE(count, 30);
    // The EXIF orientation was applied: the stored top rows (red) are on the right now.
    Image turned;
    std::string error;
    QVERIFY2(decodeImage((m_out + "/images/cat/exif6.png").toStdString(), turned, error), error.c_str());
    QVERIFY(turned.at(38, 15, 0) > 200 && turned.at(38, 15, 1) < 60);
    QVERIFY(turned.at(2, 15, 0) < 160);
    const Json manifest = Json::parse(readAll(m_out + "/dataset.json").toStdString());
    QCOMPARE(manifest.at("width").get<int>(), 40);
    QCOMPARE(manifest.at("height").get<int>(), 30);
    QCOMPARE(manifest.at("channels").get<int>(), 3);
  }

  void reportListsSkippedFilesAndDuplicates() {
    const QString report = QString::fromUtf8(readAll(m_out + "/report.txt"));
    auto has = [&](const QString& line) {
      QVERIFY2(report.contains(line), qPrintable("missing '" + line + "' in:\n" + report));
    };
    has("  dog/.hidden.png: hidden\n");
    has("  dog/.cache/: hidden folder, not read\n");
    has("  dog/empty.png: image file '");
    has("empty.png' is empty (0 bytes)");
    has("  dog/truncated.png: ");
    has("  dog/truncated.jpg: ");
    has("  dog/text.jpg: image file '");
    has("text.jpg' is not an image (PNG or JPEG)");
    has("  dog/notes.txt: not a PNG or JPEG file name (.txt)\n");
    has("  README.txt: not in a class folder");
    has("  dog/dup.png: same bytes as bird/rgb8.png\n");
    has("Duplicates (1)");
    const int skipped = m_root ? 8 : 9;
    has(QString("Skipped (%1)").arg(skipped));
    if (!m_root) has("  dog/noperm.png: cannot open image file '");
    QVERIFY(report.contains("truncated.png") && report.contains("truncated"));
    // The truncated files' reasons say so.
    for (const QString& line : report.split('\n'))
      if (line.startsWith("  dog/truncated.")) QVERIFY2(line.contains("truncated") || line.contains("damaged"), qPrintable(line));
    // Images per class.
    QVERIFY2(QRegularExpression(R"(\n\s+0\s+bird\s+9\s+2\n)").match(report).hasMatch(), qPrintable(report));
    QVERIFY2(QRegularExpression(R"(\n\s+2\s+dog\s+6\s+2\n)").match(report).hasMatch(), qPrintable(report));
  }

  void storesMatchTheirCsv() {
    for (const char* split : {"training", "validation"}) {
      const QString csv = m_out + "/" + split + ".csv";
      SampleStoreInfo info;
      std::string error;
      QVERIFY2(readSampleStoreInfo(sampleStorePathFor(csv.toStdString()), info, error), error.c_str());
      const QByteArray bytes = readAll(csv);
      QCOMPARE(info.csvSha256, sha256Hex(bytes.constData(), static_cast<size_t>(bytes.size())));
      const auto rows = readRows(csv);
      QCOMPARE(info.count, static_cast<int64_t>(rows.size()));
      QCOMPARE(info.channels, 3);
      QCOMPARE(info.height, 30);
      QCOMPARE(info.width, 40);
      // Sample k is row k's PNG in CHW planes.
      const QByteArray store = readAll(QString::fromStdString(sampleStorePathFor(csv.toStdString()).string()));
      for (size_t k : {size_t{0}, rows.size() - 1}) {
        Image img;
        QVERIFY(decodeImage((m_out + "/" + rows[k].image).toStdString(), img, error));
        const auto* s = reinterpret_cast<const uint8_t*>(store.constData()) + k * info.sampleBytes();
        for (int c = 0; c < 3; ++c)
          for (int y = 0; y < 30; y += 7)
            for (int x = 0; x < 40; x += 9) QCOMPARE(s[(c * 30 + y) * 40 + x], img.at(x, y, c));
      }
    }
  }

  void theSameSeedGivesTheSameBytes() {
    const QString again = path("again"), other = path("other-seed");
    QCOMPARE(create({m_source, "--output", again, "--threads", "1"}).exitCode, 0);
    for (const char* f : {"training.csv", "validation.csv", "training.nsstore", "validation.nsstore", "classes.txt",
                          "report.txt", "images/cat/progressive.png", "images/bird/palette_trns.png"})
      QVERIFY2(readAll(m_out + "/" + f) == readAll(again + "/" + f), f);
    QCOMPARE(create({m_source, "--output", other, "--seed", "7"}).exitCode, 0);
    QVERIFY(readAll(m_out + "/validation.csv") != readAll(other + "/validation.csv"));
    QCOMPARE(readRows(other + "/validation.csv").size(), size_t{6});
  }

  void noValidationFilesAtZeroPercent() {
    const QString out = path("no-val");
    const CliRun r = create({m_source, "--output", out, "--validation", "0", "--size", "16x12", "--channels", "1",
                             "--resize", "crop"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    QVERIFY(!QFileInfo::exists(out + "/validation.csv"));
    QVERIFY(!QFileInfo::exists(out + "/validation.nsstore"));
    QCOMPARE(readRows(out + "/training.csv").size(), size_t{30});
    SampleStoreInfo info;
    std::string error;
    QVERIFY(readSampleStoreInfo((out + "/training.nsstore").toStdString(), info, error));
    QCOMPARE(info.channels, 1);
    QCOMPARE(info.width, 16);
    QCOMPARE(info.height, 12);
    QVERIFY2(r.stdoutText.contains("\"training\": {\"format\": \"csv\", \"csv\": \"" + out.toUtf8() + "/training.csv\"}"),
             r.stdoutText.constData());
    QVERIFY(!r.stdoutText.contains("\"validation\""));
    // A size and channels asked for are "as chosen": the CLI names its options, the report
    // (shown by the console's dialog too) speaks no CLI (it said "given (--size)").
    QVERIFY2(r.stdoutText.contains("size: as chosen (--size); channels: as chosen (--channels)"), r.stdoutText.constData());
    const QString report = QString::fromUtf8(readAll(out + "/report.txt"));
    QVERIFY2(report.contains("size:       as chosen") && !report.contains("--"), qPrintable(report));
  }

  void trainValLayoutIsUsedAsGiven() {
    const QString src = path("split-source"), out = path("split-out");
    for (const char* d : {"train/a", "train/b", "val/a", "val/b", "test/a"}) QVERIFY(QDir().mkpath(src + "/" + d));
    for (int i = 0; i < 5; ++i) {
      QVERIFY(rgbPng(src + QString("/train/a/%1.png").arg(i), 20, 20, i));
      QVERIFY(rgbJpeg(src + QString("/train/b/%1.jpg").arg(i), 20, 20, 10 + i));
    }
    QVERIFY(rgbPng(src + "/val/a/0.png", 20, 20, 20));  // the same name as train/a/0.png
    QVERIFY(rgbPng(src + "/val/b/v.png", 20, 20, 21));
    QVERIFY(rgbPng(src + "/test/a/t.png", 20, 20, 22));
    const CliRun r = create({src, "--output", out});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const auto train = readRows(out + "/training.csv"), val = readRows(out + "/validation.csv");
    QCOMPARE(train.size(), size_t{10});
    QCOMPARE(val.size(), size_t{2});
    QCOMPARE(val[0].image, QString("images/val/a/0.png"));
    QCOMPARE(val[0].label, 0);
    QCOMPARE(val[1].image, QString("images/val/b/v.png"));
    QCOMPARE(val[1].label, 1);
    QCOMPARE(train[0].image, QString("images/train/a/0.png"));
    QCOMPARE(train[9].image, QString("images/train/b/4.png"));
    const QString report = QString::fromUtf8(readAll(out + "/report.txt"));
    QVERIFY2(report.contains("test/: not read"), qPrintable(report));
    // --validation would draw a split the folders already give.
    const CliRun refused = create({src, "--output", path("split-out-2"), "--validation", "10"});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.stderrText.contains("--validation"), refused.stderrText.constData());
    QVERIFY(!QFileInfo::exists(path("split-out-2")));
  }

  void trainsOneEpochOnTheDataset() {
    QFile sample(sourcePath("projects/fashion_mnist_mlp.nsproj"));
    QVERIFY(sample.open(QIODevice::ReadOnly));
    Json p = Json::parse(sample.readAll().toStdString());
    p["name"] = "MLP on a folder dataset";
    for (Json& node : p["network"]["nodes"]) {
      if (node["id"] == "x") node["params"]["shape"] = {3, 30, 40};
      if (node["id"] == "fc3") node["params"]["n_outmaps"] = {3};
    }
    p["dataset"]["training"] = {{"format", "csv"}, {"csv", (m_out + "/training.csv").toStdString()}};
    p["dataset"]["validation"] = {{"format", "csv"}, {"csv", "out/validation.csv"}};  // relative to the project
    p["config"]["batch_size"] = 4;
    const QString project = path("folder.nsproj");
    writeAll(project, QByteArray::fromStdString(p.dump(2)));
    const CliRun r = runCli({"train", project, "--max-epoch", "1", "--quiet", "--run-dir", path("run")}, 120000);
    QVERIFY2(r.exitCode == 0, (r.stdoutText + r.stderrText).constData());
    QVERIFY2(r.stdoutText.startsWith("completed "), r.stdoutText.constData());
  }

  void namesThatNeedCsvQuotingLoadBack() {
    const QString src = path("odd-names"), out = path("odd-out");
    QVERIFY(QDir().mkpath(src + "/a, \"b\""));
    QVERIFY(QDir().mkpath(src + "/ümlaut cls"));
    QVERIFY(rgbPng(src + "/a, \"b\"/x, y.png", 8, 8, 1));
    QVERIFY(rgbPng(src + "/a, \"b\"/ lead.png", 8, 8, 2));
    QVERIFY(rgbPng(src + "/ümlaut cls/é.png", 8, 8, 3));
    QVERIFY(rgbJpeg(src + "/ümlaut cls/same.jpg", 8, 8, 4));
    QVERIFY(rgbPng(src + "/ümlaut cls/same.png", 8, 8, 5));  // same stem as same.jpg
    FolderDatasetOptions o;
    o.source = src.toStdString();
    o.output = out.toStdString();
    o.validationPercent = 0;
    const FolderDatasetResult result = buildFolderDataset(o);
    QCOMPARE(result.trainingCount, int64_t{5});
    DataSourceSpec spec;
    spec.format = "csv";
    spec.csv = (out + "/training.csv").toStdString();
    const Dataset data = loadDataSource(spec, 1.0, "error");
    QCOMPARE(data.size, int64_t{5});
    QVERIFY(data.classNames == (std::vector<std::string>{"a, \"b\"", "ümlaut cls"}));
    QVERIFY(QFileInfo::exists(out + "/images/ümlaut cls/same.png"));
    QVERIFY(QFileInfo::exists(out + "/images/ümlaut cls/same_jpg.png"));
  }

  void overwriteOnlyReplacesOwnDatasets() {
    const QString out = path("replace");
    QCOMPARE(create({m_source, "--output", out}).exitCode, 0);
    const CliRun again = create({m_source, "--output", out});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.stderrText.contains("--overwrite"), again.stderrText.constData());
    const CliRun replaced = create({m_source, "--output", out, "--overwrite", "--size", "10x10"});
    QVERIFY2(replaced.exitCode == 0, replaced.stderrText.constData());
    SampleStoreInfo info;
    std::string error;
    QVERIFY(readSampleStoreInfo((out + "/training.nsstore").toStdString(), info, error));
    QCOMPARE(info.width, 10);
    QVERIFY(partialFolders(m_tmp.path()).isEmpty());
    QVERIFY(!QFileInfo::exists(out + "/.replaced"));
    // A folder of something else is never replaced; an empty one is used.
    const QString foreign = path("foreign");
    QVERIFY(QDir().mkpath(foreign));
    writeAll(foreign + "/mine.txt", "keep me\n");
    const CliRun refused = create({m_source, "--output", foreign, "--overwrite"});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.stderrText.contains("is not empty"), refused.stderrText.constData());
    QCOMPARE(names(foreign), QStringList{"mine.txt"});
    const QString empty = path("empty-dir");
    QVERIFY(QDir().mkpath(empty));
    QCOMPARE(create({m_source, "--output", empty}).exitCode, 0);
    QVERIFY(QFileInfo::exists(empty + "/training.csv"));
    // Inside the source: refused, and nothing is written there.
    const CliRun inside = create({m_source, "--output", m_source + "/bird/out"});
    QCOMPARE(inside.exitCode, 1);
    QVERIFY2(inside.stderrText.contains("inside the source"), inside.stderrText.constData());
  }

  // --overwrite replaces only what 'dataset create' wrote: a dataset folder that also holds a
  // user's parameters, a project and its runs is refused, naming them, and nothing is touched.
  // A training run's rewritten store is the builder's own file and does not count.
  void overwriteKeepsWhatTheUserAdded() {
    const QString out = path("shared");
    QCOMPARE(create({m_source, "--output", out}).exitCode, 0);
    const QStringList builderFiles = names(out);
    QVERIFY(QDir().mkpath(out + "/my_runs"));
    writeAll(out + "/my_runs/model.nsparams", "trained\n");
    writeAll(out + "/project.nsproj", "{}\n");
    QVERIFY(QDir().mkpath(out + "/.runs/20261128-120000"));
    const QString classFolder = QDir(out + "/images").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0);
    writeAll(out + "/images/" + classFolder + "/notes.txt", "mine\n");
    const QByteArray csvBefore = readAll(out + "/training.csv");
    for (const QStringList& flags : {QStringList{"--overwrite"}, QStringList{}}) {
      const CliRun refused = create(QStringList{m_source, "--output", out} + flags);
      QCOMPARE(refused.exitCode, 1);
      for (const QString& named : {QString(".runs/"), QString("my_runs/"), QString("project.nsproj"),
                                   "images/" + classFolder + "/notes.txt"})
        QVERIFY2(refused.stderrText.contains(named.toUtf8()), refused.stderrText.constData());
      QVERIFY2(refused.stderrText.contains("nothing of yours is deleted"), refused.stderrText.constData());
    }
    QCOMPARE(readAll(out + "/my_runs/model.nsparams"), QByteArray("trained\n"));
    QCOMPARE(readAll(out + "/images/" + classFolder + "/notes.txt"), QByteArray("mine\n"));
    QVERIFY(QFileInfo(out + "/.runs/20261128-120000").isDir());
    QCOMPARE(readAll(out + "/training.csv"), csvBefore);
    QVERIFY(partialFolders(m_tmp.path()).isEmpty());
    // Once they are moved out, the dataset is replaced (its store rewritten by a run or not).
    QVERIFY(QDir(out + "/my_runs").removeRecursively());
    QVERIFY(QDir(out + "/.runs").removeRecursively());
    QVERIFY(QFile::remove(out + "/project.nsproj"));
    QVERIFY(QFile::remove(out + "/images/" + classFolder + "/notes.txt"));
    const CliRun replaced = create({m_source, "--output", out, "--overwrite"});
    QVERIFY2(replaced.exitCode == 0, replaced.stderrText.constData());
    QCOMPARE(names(out), builderFiles);
  }

  // Note [Decode budget]: four 8192x8192 16-bit RGBA PNGs of about half a megabyte each decode
  // into 512 MiB of samples apiece; on four threads they took 1.6 GB and more. Now the threads
  // share one decoding budget: the command stays under 1.2 GB (one image at a time, about 0.75 GB).
  void hugeImagesShareTheDecodingMemory() {
    const QString src = path("huge-src");
    for (int k = 0; k < 4; ++k) {
      const QString folder = src + (k < 2 ? "/a" : "/b");
      QVERIFY(QDir().mkpath(folder));
      QVERIFY(writeHugeRgba16Png(folder + QString("/%1.png").arg(k), 8192, k));
    }
    QVERIFY(QFileInfo(src + "/a/0.png").size() < 2 << 20);
    rusage before{};
    getrusage(RUSAGE_CHILDREN, &before);
    const CliRun r = create({src, "--output", path("huge-out"), "--size", "32x32", "--threads", "4", "--validation", "0"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    rusage after{};
    getrusage(RUSAGE_CHILDREN, &after);
    const long peakMiB = after.ru_maxrss / 1024;
    qInfo("dataset create of four 8192x8192 16-bit RGBA PNGs on 4 threads: peak %ld MiB", peakMiB);
    QVERIFY2(peakMiB < 1200, qPrintable(QString("peak memory %1 MiB").arg(peakMiB)));
  }

  void badFlagsNameTheFlag_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString s = "SRC";
    QTest::newRow("no subcommand") << QStringList{"dataset", "make", s} << "unknown dataset command 'make'";
    QTest::newRow("no source") << QStringList{"dataset", "create", "--output", "x"} << "needs the SOURCE folder";
    QTest::newRow("no output") << QStringList{"dataset", "create", s} << "--output: name the folder";
    QTest::newRow("size word") << QStringList{"dataset", "create", s, "--output", "x", "--size", "big"}
                               << "--size: expected WIDTHxHEIGHT";
    QTest::newRow("size zero") << QStringList{"dataset", "create", s, "--output", "x", "--size", "0x28"}
                               << "--size: expected WIDTHxHEIGHT";
    QTest::newRow("channels") << QStringList{"dataset", "create", s, "--output", "x", "--channels", "2"}
                              << "--channels: expected 1 (gray) or 3 (RGB), got '2'";
    QTest::newRow("resize") << QStringList{"dataset", "create", s, "--output", "x", "--resize", "zoom"}
                            << "--resize: expected squash, crop or pad, got 'zoom'";
    QTest::newRow("validation 100") << QStringList{"dataset", "create", s, "--output", "x", "--validation", "100"}
                                    << "--validation: expected a percentage";
    QTest::newRow("validation word") << QStringList{"dataset", "create", s, "--output", "x", "--validation", "a"}
                                     << "--validation: expected a percentage";
    QTest::newRow("seed") << QStringList{"dataset", "create", s, "--output", "x", "--seed", "-1"}
                          << "--seed: expected a whole number";
    QTest::newRow("threads") << QStringList{"dataset", "create", s, "--output", "x", "--threads", "0"}
                             << "--threads: expected a positive integer";
    QTest::newRow("unknown") << QStringList{"dataset", "create", s, "--output", "x", "--shuffle"}
                             << "unknown option '--shuffle'";
  }
  void badFlagsNameTheFlag() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const CliRun r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.stderrText.contains(message.toUtf8()), r.stderrText.constData());
  }

  void helpReads() {
    const CliRun r = runCli({"dataset", "create", "--help"});
    QCOMPARE(r.exitCode, 0);
    for (const char* s : {"Usage: netsmith-cli dataset create SOURCE --output DIR", "--size WxH", "--channels 1|3",
                          "--resize MODE", "--validation PERCENT", "--seed N", "--overwrite", "report.txt"})
      QVERIFY2(r.stdoutText.contains(s), s);
    QVERIFY(runCli({"--help"}).stdoutText.contains("dataset"));
  }

  void sourceProblemsAreClearErrors() {
    const QString src = path("problems");
    QVERIFY(QDir().mkpath(src + "/good"));
    QVERIFY(QDir().mkpath(src + "/junk-only"));
    QVERIFY(rgbPng(src + "/good/a.png", 8, 8, 1));
    QVERIFY(rgbPng(src + "/good/b.png", 8, 8, 2));
    writeAll(src + "/junk-only/bad.png", "nope");
    CliRun r = create({src, "--output", path("problems-out")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.stderrText.contains("class 'junk-only' has no usable training image") &&
                 r.stderrText.contains("junk-only/bad.png"),
             r.stderrText.constData());
    QVERIFY(!QFileInfo::exists(path("problems-out")));
    QVERIFY(partialFolders(m_tmp.path()).isEmpty());

    const QString none = path("no-images");
    QVERIFY(QDir().mkpath(none + "/cls"));
    writeAll(none + "/cls/readme.md", "#");
    r = create({none, "--output", path("none-out")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.stderrText.contains("holds no PNG or JPEG image"), r.stderrText.constData());
    r = create({path("does-not-exist"), "--output", path("none-out")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.stderrText.contains("does not exist"), r.stderrText.constData());
    QVERIFY(!QFileInfo::exists(path("none-out")));
  }

  void cancelThroughTheEngineLeavesNoFolder() {
    const QString out = path("cancelled");
    FolderDatasetOptions o;
    o.source = m_source.toStdString();
    o.output = out.toStdString();
    bool converting = false;
    std::vector<BuildStage> stages;
    FolderDatasetCallbacks cb;
    cb.progress = [&](const BuildProgress& p) {
      if (stages.empty() || stages.back() != p.stage) stages.push_back(p.stage);
      if (p.stage == BuildStage::Converting && p.done > 0) converting = true;
    };
    cb.cancelled = [&] { return converting; };
    const FolderDatasetResult r = buildFolderDataset(o, cb);
    QVERIFY(r.cancelled);
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY(partialFolders(m_tmp.path()).isEmpty());
    QVERIFY(stages == (std::vector<BuildStage>{BuildStage::Scanning, BuildStage::Reading, BuildStage::Converting}));
  }

  // A bigger source, so that a signal lands in the middle of converting.
  void interruptedRunsLeaveNoFolder() {
    const QString src = path("big");
    for (int c = 0; c < 4; ++c) {
      QVERIFY(QDir().mkpath(src + QString("/c%1").arg(c)));
      for (int i = 0; i < 150; ++i) QVERIFY(rgbPng(src + QString("/c%1/%2.png").arg(c).arg(i), 96, 96, c * 1000 + i));
    }
    const QString parent = path("interrupted"), out = parent + "/ds";
    QVERIFY(QDir().mkpath(parent));
    for (const int sig : {SIGINT, SIGKILL}) {
      bool sent = false;
      QProcess p;
      p.start(cliPath(), {"dataset", "create", src, "--output", out, "--size", "64x64", "--threads", "1"});
      QVERIFY(p.waitForStarted());
      QByteArray seen;
      while (p.state() != QProcess::NotRunning && !sent) {
        p.waitForReadyRead(20);
        seen += p.readAllStandardOutput();
        if (seen.contains("converting")) {
          ::kill(static_cast<pid_t>(p.processId()), sig);
          sent = true;
        }
      }
      QVERIFY2(sent, "the run ended before it could be interrupted");
      QVERIFY(p.waitForFinished(60000));
      QVERIFY(!QFileInfo::exists(out));
      if (sig == SIGINT) {
        QCOMPARE(p.exitCode(), 3);
        QVERIFY2(p.readAllStandardError().contains("stopped; nothing was written"), "no stop message");
        QVERIFY(partialFolders(parent).isEmpty());
      } else {
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
        QCOMPARE(partialFolders(parent).size(), 1);  // left by the kill
      }
    }
    // The next run removes the killed run's folder.
    const CliRun r = create({src, "--output", out, "--size", "16x16"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    QVERIFY2(r.stdoutText.contains("removed 1 unfinished folder"), r.stdoutText.constData());
    QVERIFY(partialFolders(parent).isEmpty());
    QCOMPARE(readRows(out + "/training.csv").size() + readRows(out + "/validation.csv").size(), size_t{600});
  }

  void cleanupTestCase() {
    // Every run read the source and wrote nothing in it.
    QCOMPARE(treeFingerprint(m_source), m_fingerprint);
  }
};

QTEST_GUILESS_MAIN(DatasetCreateTest)
#include "tst_dataset_create.moc"
