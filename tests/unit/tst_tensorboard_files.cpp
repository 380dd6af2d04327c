// TensorBoard's event files (engine/tensorboard): CRC-32C against published vectors, the record
// framing (Note [TFRecord framing]) against the bytes TensorBoard's own writer gives, the reader's
// errors on damaged files, the Event encoding, the event file's name and first record, and a write
// that fails on a full disk: the file keeps its whole records, and TensorBoardSink gives up with one
// warning on the bus while the other sinks go on.
// netsmith-test-labels: asan
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <unistd.h>

#include "engine/core/write_faults.h"
#include "engine/core/error.h"
#include "engine/tensorboard/crc32c.h"
#include "engine/tensorboard/event_file.h"
#include "engine/tensorboard/event_messages.h"
#include "engine/tensorboard/records.h"
#include "engine/train/events.h"
#include "engine/train/tensorboard_sink.h"
#include "fuzz_random.h"

using namespace netsmith;
using namespace netsmith::tensorboard;
namespace fs = std::filesystem;

namespace {

QString errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

std::string bytesOf(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct FaultsCleared {
  ~FaultsCleared() { setWriteFaults(""); }
};

class Recorded final : public EventSink {
 public:
  std::vector<Json> events;
  void publish(const Json& e) override { events.push_back(e); }
};

}  // namespace

class TensorBoardFilesTest : public QObject {
  Q_OBJECT

 private slots:
  // RFC 3720 (iSCSI) B.4's CRC-32C vectors and the usual check value.
  void crc32cMatchesPublishedVectors() {
    QCOMPARE(crc32c("123456789"), 0xE3069283u);
    QCOMPARE(crc32c(""), 0u);
    QCOMPARE(crc32c(std::string(32, '\0')), 0x8A9136AAu);
    QCOMPARE(crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
    std::string up, down;
    for (int i = 0; i < 32; ++i) {
      up.push_back(static_cast<char>(i));
      down.push_back(static_cast<char>(31 - i));
    }
    QCOMPARE(crc32c(up), 0x46DD794Eu);
    QCOMPARE(crc32c(down), 0x113FDB5Cu);
  }

  // Masked values from TensorBoard's own implementation (tensorboard.compat.tensorflow_stub).
  void maskedCrcMatchesTensorBoard() {
    QCOMPARE(maskedCrc32c("123456789"), 0xC78AB0E5u);
    QCOMPARE(maskedCrc32c(""), 0xA282EAD8u);
  }

  // Every TensorBoard event file begins with these 12 bytes: a 24-byte file-version event.
  void framingMatchesTensorBoardsHeader() {
    const std::string event = fileVersionEvent(1.0);
    QCOMPARE(event.size(), size_t{24});
    const std::string record = frameRecord(event);
    QCOMPARE(record.size(), kRecordHeaderBytes + 24 + kRecordFooterBytes);
    QCOMPARE(record.substr(0, 12), bytesOf({0x18, 0, 0, 0, 0, 0, 0, 0, 0xa3, 0x7f, 0x4b, 0x22}));
    QCOMPARE(record.substr(12, 24), event);
  }

  // Event{wall_time 1.5, step 7, summary{value{tag "a", simple_value 0.5}}} as TensorBoard's
  // Python protobuf classes serialize it.
  void scalarEventHasTheWireBytesOfTheProto() {
    const std::string expected = bytesOf({0x09, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x10, 0x07, 0x2a, 0x0a, 0x0a, 0x08,
                                          0x0a, 0x01, 0x61, 0x15, 0, 0, 0, 0x3f});
    QCOMPARE(scalarsEvent(1.5, 7, {{"a", 0.5f}}), expected);
  }

  void recordsReadBackInOrder() {
    const std::vector<std::string> data = {"first", "", std::string(1000, 'x'), fileVersionEvent(2.0)};
    std::string file;
    for (const auto& d : data) file += frameRecord(d);
    QCOMPARE(readRecords(file, "f"), data);
    QVERIFY(readRecords("", "empty").empty());
  }

  void damagedRecordsAreNamedErrors() {
    const std::string file = frameRecord("one") + frameRecord("second record");
    const size_t second = kRecordHeaderBytes + 3 + kRecordFooterBytes;
    const auto errorFor = [](const std::string& bytes) { return errorOf([&] { (void)readRecords(bytes, "/r/ev"); }); };

    const QString cutHeader = errorFor(file.substr(0, second + 5));
    QVERIFY2(cutHeader.contains("/r/ev: record 2 at byte 19 is cut short") && cutHeader.contains("got 5 bytes"),
             qPrintable(cutHeader));
    const QString cutData = errorFor(file.substr(0, file.size() - 1));
    QVERIFY2(cutData.contains("record 2") && cutData.contains("expected 13 bytes of data"), qPrintable(cutData));

    std::string badLength = file;
    badLength[second] = 14;  // the length no longer matches its checksum
    QVERIFY2(errorFor(badLength).contains("record 2 at byte 19: the checksum of its length"), qPrintable(errorFor(badLength)));

    std::string badData = file;
    badData[kRecordHeaderBytes + 1] ^= 0x20;
    QVERIFY2(errorFor(badData).contains("/r/ev: record 1 at byte 0: the checksum of its 3 bytes of data"),
             qPrintable(errorFor(badData)));

    const QString notEvents = errorFor("{\"event\":\"started\"}\n");
    QVERIFY2(notEvents.contains("record 1 at byte 0"), qPrintable(notEvents));
  }

  // Random flips and cuts: an Error or the records, never a crash (AddressSanitizer watches).
  void damagedFilesNeverCrash() {
    std::string file;
    for (int i = 0; i < 6; ++i) file += frameRecord(scalarsEvent(i, i, {{"loss/train", 0.1f * i}}));
    testing::Lcg random{7};
    int errors = 0;
    for (int round = 0; round < 2000; ++round) {
      std::string damaged = file;
      if (round % 2) damaged.resize(random.below(damaged.size()));
      else damaged[random.below(damaged.size())] ^= static_cast<char>(1 + random.below(255));
      try {
        (void)readRecords(damaged, "fuzz");
      } catch (const Error&) {
        ++errors;
      }
    }
    QVERIFY(errors > 1500);  // nearly every damage is caught by a checksum or a length
  }

  void eventFileIsNamedForTensorBoardAndStartsWithItsVersion() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    EventFileWriter first(root, 1700000000.25);
    const std::string base = "events.out.tfevents.1700000000.";
    const std::string name = first.path().filename().string();
    QVERIFY2(name.starts_with(base) && name.ends_with("." + std::to_string(::getpid())), name.c_str());
    first.write(scalarsEvent(1700000001.0, 3, {{"loss/train", 0.25f}}));
    // A second session in the same second and process gets a name sorted after the first's.
    EventFileWriter second(root, 1700000000.75);
    QCOMPARE(second.path().filename().string(), name + ".2");
    QVERIFY(second.path().filename().string() > name);

    const std::vector<std::string> records = readRecords(readAll(first.path()), first.path().string());
    QCOMPARE(records.size(), size_t{2});
    QCOMPARE(records[0], fileVersionEvent(1700000000.25));
    QCOMPARE(records[1], scalarsEvent(1700000001.0, 3, {{"loss/train", 0.25f}}));
  }

  void fullDiskLeavesWholeRecordsAndANamedError() {
    FaultsCleared cleared;
    QTemporaryDir dir;
    EventFileWriter file(dir.path().toStdString(), 1.0);
    setWriteFaults("enospc:tfevents:2");  // the hook counts from here: the second write after this
    file.write(scalarsEvent(2.0, 1, {{"x", 1.0f}}));
    const QString error = errorOf([&] { file.write(scalarsEvent(3.0, 2, {{"x", 2.0f}})); });
    QVERIFY2(error.contains(QString::fromStdString(file.path().string())) && error.contains("No space left on device"),
             qPrintable(error));
    QCOMPARE(readRecords(readAll(file.path()), "f").size(), size_t{2});  // version and the first scalar
  }

  // A TensorBoard file that cannot be written is a warning: events.jsonl (an Error sink) and the
  // run go on; the sink writes nothing more and warns once.
  void sinkGivesUpWithOneWarning() {
    FaultsCleared cleared;
    QTemporaryDir dir;
    EventBus bus;
    Recorded recorded;
    bus.add(&recorded);
    training::TensorBoardSink sink(dir.path().toStdString(), {});
    bus.add(&sink);
    const Json iteration = {{"event", "iteration"}, {"epoch", 1}, {"iteration", 1}, {"global_iteration", 1}, {"loss", 0.5}};
    bus.publish(iteration);
    setWriteFaults("enospc:tfevents:1+");
    bus.publish(iteration);  // must not throw
    bus.publish(iteration);
    QCOMPARE(recorded.events.size(), size_t{4});  // three iterations and one warning
    const Json& warning = recorded.events[2];
    QCOMPARE(warning.value("event", ""), std::string("warning"));
    const std::string message = warning.value("message", "");
    QVERIFY2(message.find("TensorBoard files are no longer written") != std::string::npos &&
                 message.find(sink.path().string()) != std::string::npos,
             message.c_str());
    setWriteFaults("");
    QCOMPARE(readRecords(readAll(sink.path()), "f").size(), size_t{2});  // version and the first iteration
  }

  void hparamsAcceptNumbersStringsAndBools() {
    const HParams hp = training::hparamsOf({{"lr", 0.01}, {"solver", "Adam"}, {"augment", true}, {"batch", 64}});
    QCOMPARE(std::get<double>(hp.at("lr")), 0.01);
    QCOMPARE(std::get<std::string>(hp.at("solver")), std::string("Adam"));
    QCOMPARE(std::get<bool>(hp.at("augment")), true);
    QCOMPARE(std::get<double>(hp.at("batch")), 64.0);
    QVERIFY(training::hparamsOf(Json()).empty());
    const QString list = errorOf([] { (void)training::hparamsOf({{"kernel", {3, 3}}}); });
    QVERIFY2(list.contains("hparams.kernel: expected a number, a string or true/false, got [3,3]"), qPrintable(list));
    const QString notObject = errorOf([] { (void)training::hparamsOf(Json::array({1})); });
    QVERIFY2(notObject.contains("hparams: expected an object"), qPrintable(notObject));
  }
};

QTEST_GUILESS_MAIN(TensorBoardFilesTest)
#include "tst_tensorboard_files.moc"
