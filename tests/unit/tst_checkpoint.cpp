// Checkpoint files: bitwise round trip, clear errors for damaged files, choice of the newest
// valid checkpoint, atomic writes that leave no temporary files.
// netsmith-test-labels: asan
#include <QtTest>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/model/checkpoint.h"
#include "support/tensor_helpers.h"

using namespace netsmith;
using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

CheckpointData sampleData(int64_t epoch, int64_t iteration) {
  CheckpointData d;
  d.meta = {{"epoch", epoch},
            {"iteration", iteration},
            {"rng", {{"state", {1ull, 2ull, 18446744073709551615ull, 4ull}}}},
            {"schedule", {{"lr", 0.00123456789012345}}},
            {"name", "ünïcode ✓"}};
  Tensor special(Shape{2, 3});
  const float values[6] = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::denorm_min(), -3.5f};
  std::memcpy(special.data(), values, sizeof(values));
  d.tensors.emplace_back("conv1/W", randomTensor({16, 1, 5, 5}, 1));
  d.tensors.emplace_back("conv1/b", randomTensor({16}, 2));
  d.tensors.emplace_back("special", std::move(special));
  d.tensors.emplace_back("scalar", randomTensor({}, 3));
  d.tensors.emplace_back("empty", Tensor(Shape{0, 4}));
  d.tensors.emplace_back("big/W", randomTensor({300000}, 4));  // > 1 MiB: written without the buffer
  d.tensors.emplace_back("optimizer/conv1/W/m", randomTensor({16, 1, 5, 5}, 5));
  return d;
}


std::vector<char> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

QStringList listDir(const std::string& dir) {
  QStringList names;
  for (const auto& e : fs::directory_iterator(dir)) names << QString::fromStdString(e.path().filename().string());
  names.sort();
  return names;
}

}  // namespace

class TestCheckpoint : public QObject {
  Q_OBJECT

 private slots:
  void roundTripIsBitwise() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("epoch_0001.ckpt").toStdString();
    const CheckpointData written = sampleData(1, 234);
    writeCheckpoint(path, written);
    const CheckpointData read = readCheckpoint(path);
    QVERIFY(read.meta == written.meta);
    QCOMPARE(read.tensors.size(), written.tensors.size());
    for (size_t i = 0; i < written.tensors.size(); ++i) {
      QCOMPARE(read.tensors[i].first, written.tensors[i].first);
      QVERIFY2(bitwiseEqual(read.tensors[i].second, written.tensors[i].second), written.tensors[i].first.c_str());
    }
    QVERIFY(readCheckpointMeta(path) == written.meta);

    // Writing the same data again gives the same bytes (the format has no timestamps).
    const std::string again = tmp.filePath("again.ckpt").toStdString();
    writeCheckpoint(again, written);
    QVERIFY(readBytes(path) == readBytes(again));

    // Overwriting replaces the file.
    writeCheckpoint(path, sampleData(7, 9));
    QCOMPARE(readCheckpoint(path).meta["epoch"].get<int>(), 7);
    QCOMPARE(listDir(tmp.path().toStdString()), (QStringList{"again.ckpt", "epoch_0001.ckpt"}));
  }

  void emptyCheckpoint() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("e.ckpt").toStdString();
    writeCheckpoint(path, CheckpointData{});
    const CheckpointData d = readCheckpoint(path);
    QVERIFY(d.meta == Json::object());
    QVERIFY(d.tensors.empty());
  }

  void truncatedFile_data() {
    QTest::addColumn<int>("keep");  // bytes kept; negative: size + keep
    QTest::newRow("last byte missing") << -1;
    QTest::newRow("checksum missing") << -32;
    QTest::newRow("half") << -200000;
    QTest::newRow("header only") << 20;
    QTest::newRow("part of the magic") << 5;
  }
  void truncatedFile() {
    QFETCH(int, keep);
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("t.ckpt").toStdString();
    writeCheckpoint(path, sampleData(1, 1));
    std::vector<char> bytes = readBytes(path);
    bytes.resize(keep < 0 ? bytes.size() - size_t(-keep) : size_t(keep));
    writeBytes(path, bytes);
    const QString e = errorOf([&] { readCheckpoint(path); });
    QVERIFY2(e.startsWith(QString::fromStdString("checkpoint " + path + ": ")), qPrintable(e));
    QVERIFY2(e.contains("truncated"), qPrintable(e));
  }

  void flippedByte_data() {
    QTest::addColumn<int>("offset");  // negative: from the end
    QTest::newRow("meta") << 20;
    QTest::newRow("tensor data") << 5000;
    QTest::newRow("last data byte") << -33;
    QTest::newRow("checksum") << -1;
  }
  void flippedByte() {
    QFETCH(int, offset);
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("f.ckpt").toStdString();
    writeCheckpoint(path, sampleData(1, 1));
    std::vector<char> bytes = readBytes(path);
    bytes[offset < 0 ? bytes.size() - size_t(-offset) : size_t(offset)] ^= 0x10;
    writeBytes(path, bytes);
    const QString e = errorOf([&] { readCheckpoint(path); });
    QVERIFY2(e.contains(QString::fromStdString(path)) && e.contains("checksum mismatch: the file is damaged"),
             qPrintable(e));
  }

  void wrongMagicEmptyAndMissing() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("m.ckpt").toStdString();
    writeCheckpoint(path, sampleData(1, 1));
    std::vector<char> bytes = readBytes(path);
    bytes[6] = '9';  // "NSCKPT91"
    writeBytes(path, bytes);
    QString e = errorOf([&] { readCheckpoint(path); });
    QVERIFY2(e.contains(QString::fromStdString(path)) && e.contains("not a Netsmith checkpoint"), qPrintable(e));

    writeBytes(path, {});
    e = errorOf([&] { readCheckpoint(path); });
    QVERIFY2(e == QString::fromStdString("checkpoint " + path + ": the file is empty"), qPrintable(e));

    writeBytes(path, {'{', '"', 'a', '"', ':', '1', '}'});
    e = errorOf([&] { readCheckpoint(path); });
    QVERIFY2(e.contains("not a Netsmith checkpoint"), qPrintable(e));

    const std::string missing = tmp.filePath("missing.ckpt").toStdString();
    e = errorOf([&] { readCheckpoint(missing); });
    QVERIFY2(e.contains(QString::fromStdString(missing)) && e.contains("cannot open"), qPrintable(e));
  }

  void newestValidSkipsDamagedFiles() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    // File names sort the other way round from (epoch, iteration): the meta decides.
    writeCheckpoint(dir + "/c.ckpt", sampleData(1, 100));
    writeCheckpoint(dir + "/b.ckpt", sampleData(2, 200));
    writeCheckpoint(dir + "/a.ckpt", sampleData(2, 250));   // same epoch, later iteration
    writeCheckpoint(dir + "/0.ckpt", sampleData(3, 300));   // newest, damaged below
    writeCheckpoint(dir + "/notes.txt", sampleData(9, 900));  // not a .ckpt: ignored
    writeBytes(dir + "/garbage.ckpt", {'x', 'y', 'z'});

    std::vector<std::string> rejected;
    QCOMPARE(newestValidCheckpoint(dir, &rejected), std::optional<std::string>(dir + "/0.ckpt"));
    QCOMPARE(rejected.size(), size_t(1));  // garbage.ckpt
    QVERIFY2(QString::fromStdString(rejected[0]).contains("garbage.ckpt"), rejected[0].c_str());

    std::vector<char> bytes = readBytes(dir + "/0.ckpt");
    bytes[bytes.size() / 2] ^= 0x01;
    writeBytes(dir + "/0.ckpt", bytes);
    rejected.clear();
    QCOMPARE(newestValidCheckpoint(dir, &rejected), std::optional<std::string>(dir + "/a.ckpt"));
    QCOMPARE(rejected.size(), size_t(2));
    QStringList messages;
    for (const auto& r : rejected) messages << QString::fromStdString(r);
    QVERIFY2(messages.join("\n").contains(QString::fromStdString(dir + "/0.ckpt: checksum mismatch")),
             qPrintable(messages.join("\n")));

    // Truncating the next one falls back further; the call works without a rejected list.
    bytes = readBytes(dir + "/a.ckpt");
    bytes.resize(bytes.size() - 10);
    writeBytes(dir + "/a.ckpt", bytes);
    QCOMPARE(newestValidCheckpoint(dir), std::optional<std::string>(dir + "/b.ckpt"));

    QVERIFY(!newestValidCheckpoint(dir + "/no-such-folder").has_value());
    QTemporaryDir empty;
    QVERIFY(!newestValidCheckpoint(empty.path().toStdString()).has_value());
  }

  void noTemporaryFilesLeftBehind() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    for (int i = 0; i < 5; ++i) writeCheckpoint(dir + "/last.ckpt", sampleData(i, i));
    QCOMPARE(listDir(dir), QStringList{"last.ckpt"});

    // A failed write (here the rename, since the target is a folder) removes its temporary file.
    fs::create_directory(dir + "/taken.ckpt");
    const QString e = errorOf([&] { writeCheckpoint(dir + "/taken.ckpt", sampleData(1, 1)); });
    QVERIFY2(e.contains(QString::fromStdString(dir + "/taken.ckpt")) && e.contains("rename"), qPrintable(e));
    QCOMPARE(listDir(dir), (QStringList{"last.ckpt", "taken.ckpt"}));
    QVERIFY(fs::is_empty(dir + "/taken.ckpt"));

    // A folder that does not exist is an error naming the path.
    const std::string nowhere = dir + "/missing/x.ckpt";
    const QString e2 = errorOf([&] { writeCheckpoint(nowhere, sampleData(1, 1)); });
    QVERIFY2(e2.contains(QString::fromStdString(nowhere)), qPrintable(e2));
    QCOMPARE(listDir(dir), (QStringList{"last.ckpt", "taken.ckpt"}));
  }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
