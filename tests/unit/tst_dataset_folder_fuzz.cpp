// netsmith-test-labels: asan tsan
// Damaged input for the folder dataset builder (engine/data/folder/): readImageHeader on every
// prefix and thousands of mutations of PNG and JPEG headers, in exact-size buffers so that
// AddressSanitizer sees any read past the end; chooseValidationSplit's counts and determinism on
// random classes; buildFolderDataset on a folder of random-bytes files named .png/.jpg and of
// damaged real images, where every file must end up in exactly one place (a CSV row, the
// skipped list or the duplicates) and nothing crashes; odd folder trees (a symbolic link loop,
// deep nesting, a line break in a class name).
#include <unistd.h>

#include <QtTest>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/core/utf8.h"
#include "engine/data/dataset.h"
#include "engine/data/folder/dataset_builder.h"
#include "engine/data/folder/folder_scan.h"
#include "unit/fuzz_random.h"
#include "unit/image_test_files.h"

using namespace netsmith;
using namespace netsmith::testing;

namespace {

std::vector<uint8_t> pngBytes(int w, int h, int colorType) {
  QTemporaryDir dir;
  const QString p = dir.filePath("x.png");
  PngSpec s;
  s.width = w;
  s.height = h;
  s.colorType = colorType;
  if (!writePngFile(p, s, [](int x, int y, int c) { return (x * 7 + y * 3 + c * 50) % 256; })) return {};
  return readFileBytes(p);
}

std::vector<uint8_t> jpegBytes(int w, int h, bool exif, bool progressive) {
  JpegSpec s;
  s.width = w;
  s.height = h;
  s.progressive = progressive;
  if (exif) s.app1 = exifWithOrientation(6, true);
  return encodeJpeg(s, [](int x, int y, int c) { return (x * 5 + y * 9 + c * 60) % 256; });
}

// readImageHeader on an exact-size copy.
bool header(const std::vector<uint8_t>& bytes, size_t size, ImageHeader& h) {
  std::vector<uint8_t> exact(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
  return readImageHeader(exact.empty() ? nullptr : exact.data(), exact.size(), h);
}

std::vector<std::string> csvImages(const QString& csv) {
  std::vector<std::string> out;
  QFile f(csv);
  if (!f.open(QIODevice::ReadOnly)) return out;
  const QList<QByteArray> lines = f.readAll().split('\n');
  for (int i = 1; i < lines.size(); ++i)
    if (!lines[i].isEmpty()) out.push_back(lines[i].left(lines[i].lastIndexOf(',')).toStdString());
  return out;
}

}  // namespace

class DatasetFolderFuzzTest : public QObject {
  Q_OBJECT

 private slots:
  void headersOfGoodFiles() {
    ImageHeader h;
    const auto gray = pngBytes(9, 5, PNG_COLOR_TYPE_GRAY);
    QVERIFY(header(gray, gray.size(), h));
    QCOMPARE(h.width, 9);
    QCOMPARE(h.height, 5);
    QVERIFY(!h.colour);
    const auto rgba = pngBytes(3, 4, PNG_COLOR_TYPE_RGBA);
    QVERIFY(header(rgba, rgba.size(), h));
    QVERIFY(h.colour);
    const auto turned = jpegBytes(30, 20, /*exif=*/true, false);  // orientation 6: shown 20x30
    QVERIFY(header(turned, turned.size(), h));
    QCOMPARE(h.width, 20);
    QCOMPARE(h.height, 30);
    QVERIFY(h.colour);
    const auto progressive = jpegBytes(17, 11, false, true);
    QVERIFY(header(progressive, progressive.size(), h));
    QCOMPARE(h.width, 17);
    QCOMPARE(h.height, 11);
  }

  void everyPrefixAndMutationOfAHeader() {
    Lcg rng{12345};
    const std::vector<std::vector<uint8_t>> files = {pngBytes(12, 7, PNG_COLOR_TYPE_RGB), pngBytes(5, 5, PNG_COLOR_TYPE_GRAY),
                                                     jpegBytes(16, 8, true, false), jpegBytes(8, 16, false, true)};
    int accepted = 0;
    for (const auto& file : files) {
      QVERIFY(!file.empty());
      // Every prefix up to 400 bytes: a header read whole, or refused.
      for (size_t n = 0; n <= std::min<size_t>(file.size(), 400); ++n) {
        ImageHeader h;
        if (header(file, n, h)) {
          QVERIFY(h.width > 0 && h.height > 0);
          ++accepted;
        }
      }
      // Flipped and spliced bytes in the first 300.
      for (int round = 0; round < 3000; ++round) {
        std::vector<uint8_t> b(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(file.size(), 300)));
        const int edits = 1 + static_cast<int>(rng.below(6));
        for (int e = 0; e < edits; ++e) {
          const size_t at = rng.below(b.size());
          switch (rng.below(4)) {
            case 0: b[at] = static_cast<uint8_t>(rng.next()); break;
            case 1: b[at] = 0xFF; break;  // a marker byte or a huge length
            case 2: b.resize(at); break;
            default: b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(rng.next())); break;
          }
          if (b.empty()) break;
        }
        ImageHeader h;
        if (header(b, b.size(), h)) QVERIFY(h.width > 0 && h.height > 0);
      }
    }
    QVERIFY(accepted > 0);
    // Hand-made JPEG marker walks: a length past the end, a length below 2, fill bytes only, a
    // short SOF, scan data before any frame.
    const std::vector<std::vector<uint8_t>> cases = {
        {0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF},
        {0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01},
        {0xFF, 0xD8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
        {0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x05, 0x08, 0x00, 0x10},
        {0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02},
        {0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x08, 'E', 'x', 'i', 'f', 0, 0},
        {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'},
    };
    for (const auto& c : cases) {
      ImageHeader h;
      QVERIFY(!header(c, c.size(), h));
    }
  }

  void validationSplitCountsAndDeterminism() {
    Lcg rng{99};
    for (int round = 0; round < 200; ++round) {
      const int classes = 1 + static_cast<int>(rng.below(6));
      const double percent = static_cast<double>(rng.below(1000)) / 10.0;  // 0 .. 99.9
      std::vector<int> labels;
      std::vector<std::string> keys;
      const int n = static_cast<int>(rng.below(60));
      for (int i = 0; i < n; ++i) {
        labels.push_back(static_cast<int>(rng.below(static_cast<size_t>(classes))));
        keys.push_back("c/" + std::to_string(rng.next()) + "_" + std::to_string(i) + ".png");
      }
      const auto split = chooseValidationSplit(labels, keys, classes, percent, 5);
      QCOMPARE(split.size(), labels.size());
      for (int c = 0; c < classes; ++c) {
        int64_t total = 0, val = 0;
        for (size_t i = 0; i < labels.size(); ++i)
          if (labels[i] == c) {
            ++total;
            val += split[i] == DataSplit::Validation;
          }
        const int64_t expected =
            total < 2 ? 0 : std::min<int64_t>(static_cast<int64_t>(std::floor(total * percent / 100 + 0.5)), total - 1);
        QCOMPARE(val, expected);
      }
      // The same items in reverse order: each key keeps its split.
      std::vector<int> rl(labels.rbegin(), labels.rend());
      std::vector<std::string> rk(keys.rbegin(), keys.rend());
      const auto reversed = chooseValidationSplit(rl, rk, classes, percent, 5);
      for (size_t i = 0; i < split.size(); ++i) QCOMPARE(reversed[split.size() - 1 - i], split[i]);
    }
    QVERIFY_THROWS_EXCEPTION(Error, chooseValidationSplit({0}, {"a"}, 1, 100, 0));
    QVERIFY_THROWS_EXCEPTION(Error, chooseValidationSplit({3}, {"a"}, 2, 10, 0));
  }

  void randomAndDamagedFilesAreSkippedNeverFatal() {
    QTemporaryDir tmp;
    const QString src = tmp.filePath("src");
    Lcg rng{2024};
    const auto goodPng = pngBytes(10, 10, PNG_COLOR_TYPE_RGB);
    const auto goodJpeg = jpegBytes(10, 10, false, false);
    std::set<std::string> randomFiles;
    int files = 0;
    for (int c = 0; c < 3; ++c) {
      const QString cls = src + QString("/class%1").arg(c);
      QVERIFY(QDir().mkpath(cls));
      // Two good images per class, so every class trains.
      for (int g = 0; g < 2; ++g) {
        PngSpec s;
        s.width = 10;
        s.height = 10;
        QVERIFY(writePngFile(cls + QString("/good%1.png").arg(g), s, [&](int x, int y, int ch) { return (x + y + ch + c * 40 + g * 9) % 256; }));
        files += 1;
      }
      // Random bytes (not starting with a signature) under image names.
      for (int k = 0; k < 15; ++k) {
        std::vector<uint8_t> b(rng.below(3000));
        for (auto& v : b) v = static_cast<uint8_t>(rng.next());
        if (!b.empty()) b[0] = static_cast<uint8_t>('A' + rng.below(26));
        const char* ext = k % 3 == 0 ? "png" : k % 3 == 1 ? "jpg" : "JPEG";
        const QString name = QString("random%1.%2").arg(k).arg(ext);
        QVERIFY(writeFileBytes(cls + "/" + name, b));
        randomFiles.insert(QString("class%1/%2").arg(c).arg(name).toStdString());
        files += 1;
      }
      // Damaged real images: cut, flipped, spliced.
      for (int k = 0; k < 20; ++k) {
        std::vector<uint8_t> b = k % 2 ? goodPng : goodJpeg;
        switch (k % 4) {
          case 0: b.resize(rng.below(b.size())); break;
          case 1:
            for (int e = 0; e < 4; ++e) b[rng.below(b.size())] = static_cast<uint8_t>(rng.next());
            break;
          case 2: b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size())), 40, 0xFF); break;
          default: b.erase(b.begin() + static_cast<std::ptrdiff_t>(8 + rng.below(b.size() - 20)), b.end() - 10); break;
        }
        QVERIFY(writeFileBytes(cls + QString("/damaged%1.%2").arg(k).arg(k % 2 ? "png" : "jpg"), b));
        files += 1;
      }
    }
    FolderDatasetOptions o;
    o.source = src.toStdString();
    o.output = tmp.filePath("out").toStdString();
    o.width = 10;
    o.height = 10;
    const FolderDatasetResult r = buildFolderDataset(o);
    QVERIFY(!r.cancelled);
    std::map<std::string, int> placed;
    for (const auto& s : r.skipped) {
      QVERIFY2(!s.reason.empty(), s.path.c_str());
      QVERIFY2(s.reason.find('\n') == std::string::npos, s.reason.c_str());
      placed[s.path] += 1;
    }
    for (const auto& d : r.duplicates) placed[d.path] += 1;
    for (const char* split : {"training", "validation"})
      for (const std::string& image : csvImages(tmp.filePath(QString("out/%1.csv").arg(split)))) {
        // images/classN/name.png <- classN/name.<ext>
        const std::string rel = image.substr(7);
        const std::string stem = rel.substr(0, rel.rfind('.'));
        int found = 0;
        for (const char* ext : {".png", ".jpg", ".JPEG"})
          if (QFileInfo::exists(QString::fromStdString(src.toStdString() + "/" + stem + ext))) ++found;
        QVERIFY2(found >= 1, image.c_str());
        placed[stem] += 1;
      }
    int total = 0;
    for (const auto& [path, n] : placed) {
      QVERIFY2(n == 1, path.c_str());
      total += n;
    }
    QCOMPARE(total, files);
    for (const std::string& f : randomFiles) {
      const auto it = std::find_if(r.skipped.begin(), r.skipped.end(), [&](const SkippedFile& s) { return s.path == f; });
      QVERIFY2(it != r.skipped.end(), f.c_str());
    }
    QCOMPARE(r.trainingCount + r.validationCount + static_cast<int64_t>(r.skipped.size() + r.duplicates.size()),
             static_cast<int64_t>(files));
  }

  void oddFolderTrees() {
    QTemporaryDir tmp;
    const QString src = tmp.filePath("src");
    PngSpec s;
    s.width = 6;
    s.height = 6;
    auto value = [](int x, int y, int c) { return (x * 11 + y + c) % 256; };
    // A symbolic link back up the tree: read once, listed, no endless walk.
    QVERIFY(QDir().mkpath(src + "/a/sub"));
    QVERIFY(writePngFile(src + "/a/sub/1.png", s, value));
    QVERIFY(QFile::link(src + "/a", src + "/a/sub/loop"));
    // Deep nesting.
    QString deep = src + "/b";
    for (int i = 0; i < 60; ++i) deep += "/d";
    QVERIFY(QDir().mkpath(deep));
    QVERIFY(writePngFile(deep + "/2.png", s, value));
    // A line break in a class name: that folder is skipped.
    QVERIFY(QDir().mkpath(src + "/bad\nname"));
    QVERIFY(writePngFile(src + "/bad\nname/3.png", s, value));
    // A broken link.
    QVERIFY(QFile::link(src + "/missing.png", src + "/b/broken.png"));
    const FolderScan scan = scanImageFolder(src.toStdString());
    QVERIFY(scan.classNames == (std::vector<std::string>{"a", "b"}));
    QCOMPARE(scan.images.size(), size_t{2});
    std::map<std::string, std::string> skipped;
    for (const auto& k : scan.skipped) skipped[k.path] = k.reason;
    QVERIFY(skipped.count("a/sub/loop/"));
    QVERIFY(skipped.count("bad\nname/"));
    QVERIFY(skipped.count("b/broken.png"));
    QCOMPARE(skipped["b/broken.png"], std::string("broken symbolic link"));
    QCOMPARE(scan.images[1].inClass.size(), size_t{60 * 2 + 5});
  }

  // Folder and file names that are not UTF-8 (Linux names are bytes): the build never aborts, the
  // classes are named with the odd bytes read as Latin-1 (with a warning), and everything it writes
  // that JSON or the console reads is UTF-8. Random byte names on top of the cases by hand.
  void namesThatAreNotUtf8() {
    QTemporaryDir tmp;
    const std::string src = tmp.filePath("src").toStdString();
    int seed = 0;
    auto writeImage = [&](const std::string& folder, const std::string& name) {
      std::filesystem::create_directories(folder);
      QTemporaryDir one;
      PngSpec spec;
      spec.width = 6;
      spec.height = 6;
      const int k = seed++;
      QVERIFY(writePngFile(one.filePath("x.png"), spec, [k](int x, int y, int c) { return (x * 13 + y * 7 + c + k * 31) % 256; }));
      std::filesystem::copy_file(one.filePath("x.png").toStdString(), folder + "/" + name);
    };
    for (int i = 0; i < 3; ++i) {
      writeImage(src + "/caf\xE9", "a" + std::to_string(i) + ".png");        // Latin-1
      writeImage(src + "/half\xC3", "b" + std::to_string(i) + ".png");       // a cut UTF-8 sequence
      writeImage(src + "/ok", "n\xE9" + std::to_string(i) + ".png");          // a file name
    }
    Lcg rng{77};
    for (int k = 0; k < 20; ++k) {  // random bytes, never '/' or NUL, never hidden
      std::string name(1 + rng.below(12), 'x');
      for (char& ch : name) ch = static_cast<char>(1 + rng.below(255));
      for (char& ch : name)
        if (ch == '/' || ch == '\n' || ch == '\r') ch = 'y';
      if (name[0] == '.') name[0] = 'z';
      writeImage(src + "/ok", name + "_" + std::to_string(k) + ".png");
    }
    FolderDatasetOptions o;
    o.source = src;
    o.output = tmp.filePath("out").toStdString();
    FolderDatasetResult result;
    try {
      result = buildFolderDataset(o, {});
    } catch (const Error& e) {
      QFAIL(e.what());
    }
    const FolderScan scan = scanImageFolder(src);
    QVERIFY(scan.classNames == (std::vector<std::string>{"caf\u00e9", "half\u00c3", "ok"}));
    int warnings = 0;
    for (const std::string& w : scan.warnings) warnings += w.find("is not named in UTF-8") != std::string::npos;
    QCOMPARE(warnings, 2);
    QCOMPARE(result.trainingCount + result.validationCount, int64_t{29});
    for (const char* file : {"dataset.json", "training.csv", "validation.csv", "classes.txt"}) {
      QFile f(tmp.filePath("out/") + file);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray bytes = f.readAll();
      QVERIFY2(isUtf8(bytes.toStdString()), file);
    }
    QFile manifest(tmp.filePath("out/dataset.json"));
    QVERIFY(manifest.open(QIODevice::ReadOnly));
    QVERIFY(!nlohmann::json::parse(manifest.readAll().toStdString(), nullptr, false).is_discarded());

    // Two folders that would be one class: a clear error naming both.
    const std::string twins = tmp.filePath("twins").toStdString();
    writeImage(twins + "/caf\xE9", "1.png");
    writeImage(twins + "/caf\u00e9", "2.png");
    try {
      scanImageFolder(twins);
      QFAIL("two folders of one class name were accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("'caf\\xE9'") != std::string::npos &&
                   std::string(e.what()).find("'caf\u00e9'") != std::string::npos,
               e.what());
    }
  }

  // What a dataset says reads back as found: a link back into the source is not followed (the
  // real folder keeps its images and its class), and names with '\\' or a line break are written
  // so that the CSV reader gives back the file that exists. One class gets a warning.
  void datasetsReadBackAsFound() {
    QTemporaryDir tmp;
    const QString src = tmp.filePath("src");
    int seed = 0;
    auto image = [&](const QString& path) {
      PngSpec spec;
      spec.width = 6;
      spec.height = 6;
      const int k = seed++;
      QVERIFY(QDir().mkpath(QFileInfo(path).path()));
      QVERIFY(writePngFile(path, spec, [k](int x, int y, int c) { return (x * 13 + y * 7 + c + k * 31) % 256; }));
    };
    for (int i = 0; i < 4; ++i) image(src + QString("/a/%1.png").arg(i));
    for (int i = 0; i < 5; ++i) image(src + QString("/b/%1.png").arg(i));
    image(src + "/b/back\\slash.png");
    image(src + "/b/sub\nfolder/n.png");
    QVERIFY(QFile::link(src, src + "/a/loop"));       // back to the source: a/loop/b/... would be b's images as a's
    QVERIFY(QFile::link(src + "/b", src + "/a/alias")); // a second name for b
    FolderDatasetOptions o;
    o.source = src.toStdString();
    o.output = tmp.filePath("out").toStdString();
    o.validationPercent = 0;
    FolderDatasetResult result;
    try {
      result = buildFolderDataset(o, {});
    } catch (const Error& e) {
      QFAIL(e.what());
    }
    QCOMPARE(result.trainingCount, int64_t{11});
    std::map<std::string, std::string> skipped;
    for (const auto& k : result.skipped) skipped[k.path] = k.reason;
    QVERIFY(skipped.count("a/loop/") && skipped.count("a/alias/"));
    QVERIFY2(skipped["a/alias/"].find("the source's 'b/': not followed") != std::string::npos, skipped["a/alias/"].c_str());
    // Read back through the CSV reader: every row's file exists and sits in its label's class folder.
    DataSourceSpec spec;
    spec.format = "csv";
    spec.csv = tmp.filePath("out/training.csv").toStdString();
    const Dataset data = loadDataSource(spec, 1.0 / 255, "error");
    QCOMPARE(data.size, int64_t{11});
    const std::vector<std::string> rows = csvImages(tmp.filePath("out/training.csv"));
    QCOMPARE(rows.size(), size_t{11});
    int inA = 0, inB = 0;
    for (const std::string& row : rows) {
      QVERIFY2(row.find('\\') == std::string::npos && row.find('\n') == std::string::npos, row.c_str());
      QVERIFY2(QFileInfo::exists(tmp.filePath("out/") + QString::fromStdString(row)), row.c_str());
      inA += row.rfind("images/a/", 0) == 0;
      inB += row.rfind("images/b/", 0) == 0;
    }
    QCOMPARE(inA, 4);
    QCOMPARE(inB, 7);
    for (int64_t i = 0; i < data.size; ++i)
      QCOMPARE(static_cast<int>(data.labels[static_cast<size_t>(i)]), rows[static_cast<size_t>(i)].rfind("images/a/", 0) == 0 ? 0 : 1);

    // One class: a warning.
    const QString one = tmp.filePath("one");
    image(one + "/only/1.png");
    image(one + "/only/2.png");
    bool warned = false;
    for (const std::string& w : scanImageFolder(one.toStdString()).warnings)
      warned = warned || w.find("only one class ('only')") != std::string::npos;
    QVERIFY(warned);
  }

  // train/ and val/ with class folders whose names hold line breaks (skipped) and a line break
  // deeper down (kept): every image of both CSVs is labelled by the class folder it was found
  // under. Each class's images are one grey level (a distinct first pixel keeps them from being
  // duplicates), so a sample's own pixels tell its class.
  void givenSplitLabelsEachImageByItsFolder() {
    QTemporaryDir tmp;
    const QString src = tmp.filePath("src");
    int n = 0;
    auto image = [&](const QString& path, int grey) {
      PngSpec spec;
      spec.width = 4;
      spec.height = 4;
      spec.colorType = PNG_COLOR_TYPE_GRAY;
      QVERIFY(QDir().mkpath(QFileInfo(path).path()));
      const int k = n++;
      QVERIFY(writePngFile(path, spec, [grey, k](int x, int y, int) { return x == 0 && y == 0 ? k : grey; }));
    };
    const std::map<std::string, int> greyOf{{"a", 20}, {"b", 200}};
    for (const char* split : {"train", "val"}) {
      const QString root = src + "/" + split;
      for (int i = 0; i < 3; ++i) image(root + QString("/a/%1.png").arg(i), 20);
      for (int i = 0; i < 3; ++i) image(root + QString("/b/%1.png").arg(i), 200);
      image(root + "/b/sub\nfolder/deep.png", 200);
      image(root + "/c\nd/1.png", 120);  // skipped with its folder: its grey must appear nowhere
      image(root + "/a\n/1.png", 120);   // looks like a, is not a
    }
    FolderDatasetOptions o;
    o.source = src.toStdString();
    o.output = tmp.filePath("out").toStdString();
    FolderDatasetResult result;
    try {
      result = buildFolderDataset(o, {});
    } catch (const Error& e) {
      QFAIL(e.what());
    }
    QCOMPARE(result.trainingCount, int64_t{7});
    QCOMPARE(result.validationCount, int64_t{7});
    std::set<std::string> skipped;
    for (const auto& k : result.skipped) skipped.insert(k.path);
    for (const char* path : {"train/c\nd/", "val/c\nd/", "train/a\n/", "val/a\n/"})
      QVERIFY2(skipped.count(path), path);
    for (const char* csv : {"out/training.csv", "out/validation.csv"}) {
      DataSourceSpec spec;
      spec.format = "csv";
      spec.csv = tmp.filePath(csv).toStdString();
      const Dataset data = loadDataSource(spec, 1.0, "error");
      QCOMPARE(data.size, int64_t{7});
      QCOMPARE(data.classNames, (std::vector<std::string>{"a", "b"}));
      for (int64_t i = 0; i < data.size; ++i) {
        const std::vector<float> values = data.sampleValues(i);
        const std::string& cls = data.classNames.at(static_cast<size_t>(*data.label(i)));
        for (size_t p = 1; p < values.size(); ++p)
          QVERIFY2(values[p] == static_cast<float>(greyOf.at(cls)),
                   qPrintable(QString("%1 %2 is labelled %3 but holds grey %4")
                                  .arg(csv, QString::fromStdString(data.rowName(i)), QString::fromStdString(cls))
                                  .arg(values[p])));
      }
    }
  }
};

QTEST_GUILESS_MAIN(DatasetFolderFuzzTest)
#include "tst_dataset_folder_fuzz.moc"
