// netsmith-test-labels: tsan asan
// Note [Sample storage], [Sample store] and [Sample feed]: a dataset's samples kept as bytes in
// memory, in a packed store beside its CSV, or in a raw IDX file give the same float batches bit
// for bit; the store is used only for the CSV it was made from; the prefetch thread gives the
// same bytes as direct reads, in any order of asking, and reports a read error at the sample.
#include <QtTest>
#include <QTemporaryDir>
#include <numeric>

#include "engine/core/error.h"
#include "engine/core/sha256.h"
#include "engine/data/dataset.h"
#include "engine/data/sample_feed.h"
#include "engine/data/sample_store.h"
#include "support/dataset_values.h"
#include "unit/dataset_test_files.h"
#include "unit/fuzz_random.h"

using namespace netsmith;
using namespace netsmith::testing;

namespace {

constexpr int kSamples = 40;
constexpr double kScale = 1.0 / 255;

// kSamples 5x4 RGB PNGs in class folders' worth of rows, a CSV naming them, and (optionally) the
// store `dataset create` would write beside it.
QString writeCsvDataset(const QTemporaryDir& dir, bool withStore) {
  QByteArray csv = "x:image,y:label\n";
  std::vector<std::vector<uint8_t>> samples;
  for (int i = 0; i < kSamples; ++i) {
    const QString name = QString("img%1.png").arg(i);
    auto value = [i](int x, int y, int c) { return (i * 37 + y * 11 + x * 5 + c * 80) % 256; };
    writePng(dir.filePath(name), 5, 4, PNG_COLOR_TYPE_RGB, 8, value);
    std::vector<uint8_t> chw;
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 5; ++x) chw.push_back(static_cast<uint8_t>(value(x, y, c)));
    samples.push_back(chw);
    csv += name.toUtf8() + "," + QByteArray::number(i % 3) + "\n";
  }
  writeText(dir.filePath("training.csv"), csv);
  if (withStore) {
    SampleStoreWriter store(sampleStorePathFor(dir.filePath("training.csv").toStdString()), 3, 4, 5);
    for (const auto& s : samples) store.append(s.data());
    store.commit(sha256Hex(csv.constData(), static_cast<size_t>(csv.size())));
  }
  return dir.filePath("training.csv");
}

std::vector<int64_t> range(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t{0});
  return v;
}

}  // namespace

class TestSampleStorage : public QObject {
  Q_OBJECT

 private slots:
  void pngCsvIsHeldAsBytesAndStoreIsStreamed() {
    QTemporaryDir plainDir, storeDir;
    const Dataset plain = loadDataSource(csvSpec(writeCsvDataset(plainDir, false)), kScale, "error");
    const Dataset stored = loadDataSource(csvSpec(writeCsvDataset(storeDir, true)), kScale, "error");
    QVERIFY(!plain.file && !plain.pixels.empty() && plain.features.empty());
    QVERIFY(stored.file && stored.pixels.empty() && stored.features.empty());
    QCOMPARE(stored.sampleShape, (Shape{3, 4, 5}));
    QCOMPARE(stored.size, int64_t{kSamples});
    QVERIFY(stored.warnings.empty());
    // The store holds no labels: they come from the CSV.
    QCOMPARE(stored.labels, plain.labels);
    QCOMPARE(datasetValues(stored), datasetValues(plain));
    QCOMPARE(plain.sampleValues(3)[0], static_cast<float>((3 * 37) % 256 * kScale));
    // In memory: a byte per value; streamed: only the labels and row numbers.
    QVERIFY(plain.memoryBytes() >= kSamples * 60);
    QVERIFY(stored.memoryBytes() < kSamples * 60);
    QVERIFY(stored.diskBytes > kSamples * 60);
  }

  void editedCsvFallsBackToItsImages() {
    QTemporaryDir dir;
    const QString csv = writeCsvDataset(dir, true);
    // Drop the last row: the store was made from another CSV.
    QByteArray text;
    {
      QFile f(csv);
      QVERIFY(f.open(QIODevice::ReadOnly));
      text = f.readAll();
    }
    text.chop(1);
    text = text.left(text.lastIndexOf('\n') + 1);
    writeText(csv, text);
    const Dataset d = loadDataSource(csvSpec(csv), kScale, "error");
    QVERIFY(!d.file);
    QCOMPARE(d.size, int64_t{kSamples - 1});
    QCOMPARE(d.warnings.size(), size_t{1});
    QVERIFY2(QString::fromStdString(d.warnings[0]).contains("made from another version"), d.warnings[0].c_str());
    // A store cut short is refused the same way, naming the store.
    const std::string store = sampleStorePathFor(csv.toStdString()).string();
    QVERIFY(QFile::resize(QString::fromStdString(store), 100));
    const Dataset cut = loadDataSource(csvSpec(csv), kScale, "error");
    QVERIFY(!cut.file);
    QVERIFY2(QString::fromStdString(cut.warnings.at(0)).contains(QString::fromStdString(store)), cut.warnings[0].c_str());
  }

  void skippedRowsMapToTheirStoreSamples() {
    QTemporaryDir dir;
    const QString csv = writeCsvDataset(dir, false);
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    text.replace("img5.png,2", "img5.png,x");  // row 7: a bad label
    writeText(csv, text);
    // The store made from this (edited) CSV: samples for every row, as dataset create would not
    // write, but a user may produce by hand; the bad row's sample must be skipped with its row.
    SampleStoreWriter store(sampleStorePathFor(csv.toStdString()), 3, 4, 5);
    QTemporaryDir refDir;
    const Dataset reference = loadDataSource(csvSpec(writeCsvDataset(refDir, false)), kScale, "error");
    std::vector<uint8_t> bytes(60);
    for (int i = 0; i < kSamples; ++i) {
      reference.readSampleBytes(i, bytes.data());
      store.append(bytes.data());
    }
    store.commit(sha256Hex(text.constData(), static_cast<size_t>(text.size())));
    const Dataset d = loadDataSource(csvSpec(csv), kScale, "skip");
    QVERIFY(d.file);
    QCOMPARE(d.size, int64_t{kSamples - 1});
    QCOMPARE(d.sampleValues(5), reference.sampleValues(6));
    QCOMPARE(d.sampleValues(4), reference.sampleValues(4));
  }

  // The loader decodes 8-bit images into one buffer sized from the first good image: a bad first
  // row, rows skipped between, and a 16-bit image off the 8-bit levels (float32 then) all keep
  // every value.
  void heldBytesSurviveBadRowsAndMixedDepths() {
    QTemporaryDir dir;
    const QString csv = writeCsvDataset(dir, false);
    const Dataset reference = loadDataSource(csvSpec(csv), kScale, "error");
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    text.replace("x:image,y:label\n", "x:image,y:label\nmissing.png,0\n");
    text.replace("img9.png,0", "also-missing.png,0");
    writeText(csv, text);
    const Dataset d = loadDataSource(csvSpec(csv), kScale, "skip");
    QVERIFY(!d.pixels.empty() && d.features.empty());
    QCOMPARE(d.size, int64_t{kSamples - 1});
    QCOMPARE(d.sampleValues(0), reference.sampleValues(0));
    QCOMPARE(d.sampleValues(8), reference.sampleValues(8));
    QCOMPARE(d.sampleValues(9), reference.sampleValues(10));
    QCOMPARE(d.sampleValues(kSamples - 2), reference.sampleValues(kSamples - 1));
    // A 16-bit image whose values fall between 8-bit levels: the dataset becomes float32.
    writePng(dir.filePath("img3.png"), 5, 4, PNG_COLOR_TYPE_RGB, 16, [](int x, int y, int c) { return 1000 + x + y + c; });
    const Dataset mixed = loadDataSource(csvSpec(csv), kScale, "skip");
    QVERIFY(mixed.pixels.empty() && !mixed.features.empty());
    QCOMPARE(mixed.sampleValues(8), reference.sampleValues(8));
    QCOMPARE(mixed.sampleValues(3)[0], static_cast<float>(static_cast<float>(1000 / 257.0) * kScale));
  }

  // A damaged store (cut anywhere, bytes of its trailer changed, noise) is never trusted blindly:
  // the trailer check refuses it naming the file, or it describes exactly the file's bytes; the
  // CSV then loads from its images with a warning, or from the store, with the same values.
  void damagedStoresAreRefusedNamingTheFile() {
    QTemporaryDir dir;
    const QString csv = writeCsvDataset(dir, true);
    const std::vector<float> values = datasetValues(loadDataSource(csvSpec(csv), kScale, "error"));
    const std::string store = sampleStorePathFor(csv.toStdString()).string();
    const std::vector<uint8_t> good = readBytes(QString::fromStdString(store));
    Lcg rng{7};
    for (int round = 0; round < 300; ++round) {
      std::vector<uint8_t> bad = good;
      switch (round % 3) {
        case 0:
          bad.resize(rng.below(good.size()));
          break;
        case 1:
          for (int k = 0, n = 1 + static_cast<int>(rng.below(4)); k < n; ++k)
            bad[good.size() - 64 + rng.below(64)] = static_cast<uint8_t>(rng.next());
          break;
        default:
          bad.resize(rng.below(200));
          for (auto& b : bad) b = static_cast<uint8_t>(rng.next());
          if (bad.size() >= 8 && rng.below(2)) std::memcpy(bad.data() + bad.size() - std::min<size_t>(bad.size(), 64), "NSSTORE1", 8);
      }
      writeBytes(QString::fromStdString(store), bad);
      SampleStoreInfo info;
      std::string error;
      if (readSampleStoreInfo(store, info, error)) {
        QCOMPARE(static_cast<size_t>(info.count * info.sampleBytes() + kSampleStoreTrailerBytes), bad.size());
      } else {
        QVERIFY2(error.find(store) != std::string::npos, error.c_str());
      }
      const Dataset d = loadDataSource(csvSpec(csv), kScale, "error");
      if (!d.file) {
        QVERIFY(!d.warnings.empty());
        QCOMPARE(datasetValues(d), values);
      } else {
        // Only a trailer that still matches the CSV and its samples exactly: bytes of the
        // trailer's reserved or padding positions do not exist, so this means the mutation
        // rewrote a byte to its own value.
        QCOMPARE(datasetValues(d), values);
      }
    }
  }

  void rawIdxIsStreamedGzipHeld() {
    QTemporaryDir dir;
    std::vector<uint8_t> pixels(6 * 3 * 2), labels = {0, 1, 2, 0, 1, 2};
    std::iota(pixels.begin(), pixels.end(), uint8_t{200});
    writeBytes(dir.filePath("img"), idxBytes(0x08, {6, 3, 2}, pixels));
    writeBytes(dir.filePath("lab"), idxBytes(0x08, {6}, labels));
    writeGzip(dir.filePath("img.gz"), idxBytes(0x08, {6, 3, 2}, pixels));
    DataSourceSpec raw{"idx", dir.filePath("img").toStdString(), dir.filePath("lab").toStdString(), ""};
    DataSourceSpec gz{"idx", dir.filePath("img.gz").toStdString(), dir.filePath("lab").toStdString(), ""};
    const Dataset r = loadDataSource(raw, 0.5, "error");
    const Dataset g = loadDataSource(gz, 0.5, "error");
    QVERIFY(r.file && !g.file && !g.pixels.empty());
    QCOMPARE(datasetValues(r), datasetValues(g));
    QCOMPARE(r.sampleValues(5).back(), static_cast<float>(uint8_t(200 + 35) * 0.5));
    // A raw file cut after loading: the batch that needs the lost sample names the file.
    QVERIFY(QFile::resize(dir.filePath("img"), 16 + 6 * 4));
    Tensor x, y;
    const std::vector<int64_t> ids = {5};
    try {
      gatherBatch(r, ids, x, y);
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(dir.filePath("img")) && QString(e.what()).contains("ends early"), e.what());
    }
  }

  void gatherGivesTheSameBatchFromEveryStorage() {
    QTemporaryDir plainDir, storeDir;
    const Dataset plain = loadDataSource(csvSpec(writeCsvDataset(plainDir, false)), kScale, "error");
    const Dataset stored = loadDataSource(csvSpec(writeCsvDataset(storeDir, true)), kScale, "error");
    Dataset floats = plain;  // the same values as float32 in memory
    floats.features = datasetValues(plain);
    floats.pixels.clear();
    const std::vector<int64_t> ids = {7, 0, 39, 7, 12};
    Tensor a, b, c, ya, yb, yc;
    gatherBatch(plain, ids, a, ya);
    gatherBatch(stored, ids, b, yb);
    gatherBatch(floats, ids, c, yc);
    QCOMPARE(a.size(), int64_t{5 * 60});
    QVERIFY(std::equal(a.data(), a.data() + a.size(), b.data()));
    QVERIFY(std::equal(a.data(), a.data() + a.size(), c.data()));
    QVERIFY(std::equal(ya.data(), ya.data() + ya.size(), yb.data()));
  }

  // The feed's thread reads ahead of the taker in the announced order; taking out of that order,
  // announcing anew mid-way and a capacity of 1 still give exactly the direct reads.
  void feedGivesTheDirectReadsInAnyOrder() {
    QTemporaryDir dir;
    const Dataset stored = loadDataSource(csvSpec(writeCsvDataset(dir, true)), kScale, "error");
    for (int64_t capacity : {1, 3, 64}) {
      SampleFeed feed(stored, capacity);
      std::vector<int64_t> order = epochOrder(kSamples, 5, 1, true);
      for (int round = 0; round < 3; ++round) {
        feed.announce(order);
        bool reannounced = false;
        Tensor viaFeed, direct, y1, y2;
        for (int64_t start = 0; start + 8 <= kSamples; start += 8) {
          const std::span<const int64_t> ids(order.data() + start, 8);
          gatherBatch(stored, ids, viaFeed, y1, &feed);
          gatherBatch(stored, ids, direct, y2);
          QVERIFY(std::equal(viaFeed.data(), viaFeed.data() + viaFeed.size(), direct.data()));
          if (round == 1 && start == 16) {
            // Off the announced order (an evaluation between steps): read directly.
            const std::vector<int64_t> other = {3, 1};
            gatherBatch(stored, other, viaFeed, y1, &feed);
            gatherBatch(stored, other, direct, y2);
            QVERIFY(std::equal(viaFeed.data(), viaFeed.data() + viaFeed.size(), direct.data()));
            break;
          }
          if (round == 2 && start == 8 && !reannounced) {
            order = range(kSamples);  // a new announcement mid-way
            feed.announce(order);
            reannounced = true;
            start = -8;
          }
        }
      }
    }
  }

  // A read error on the feed's thread reaches the taker of that sample, naming the file.
  void feedReportsAReadErrorAtItsSample() {
    QTemporaryDir dir;
    const Dataset stored = loadDataSource(csvSpec(writeCsvDataset(dir, true)), kScale, "error");
    SampleFeed feed(stored, 4);
    QVERIFY(QFile::resize(QString::fromStdString(stored.file->path()), 60 * 10));  // samples 10.. are gone
    feed.announce(range(kSamples));
    std::vector<uint8_t> out(60 * 10);
    const std::vector<int64_t> first = range(10);
    feed.take(first, out.data());  // still there
    const std::vector<int64_t> next = {10};
    try {
      feed.take(next, out.data());
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(QString::fromStdString(stored.file->path())), e.what());
    }
  }

  void keepFirstKeepsEveryStorageConsistent() {
    QTemporaryDir dir;
    Dataset stored = loadDataSource(csvSpec(writeCsvDataset(dir, true)), kScale, "error");
    const std::vector<float> fifth = stored.sampleValues(4);
    stored.keepFirst(5);
    QCOMPARE(stored.size, int64_t{5});
    QCOMPARE(stored.labels.size(), size_t{5});
    QCOMPARE(stored.sampleValues(4), fifth);
    QVERIFY_THROWS_EXCEPTION(Error, stored.sampleValues(5));
  }
};

QTEST_GUILESS_MAIN(TestSampleStorage)
#include "tst_sample_storage.moc"
