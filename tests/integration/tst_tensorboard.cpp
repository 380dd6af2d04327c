// Every run writes TensorBoard event files (Note [TensorBoard tags], Note [TensorBoard HParams]):
// tiny trainings on two CPU workers are read back with TensorBoard's own reader (EventAccumulator,
// tests/support/tensorboard_read.py, with the Python of Note [Test Python]) and its scalars and
// HParams records compared with the run's events.jsonl. Where the tensorboard package cannot be
// imported, the files' framing is still checked with engine/tensorboard's reader and the test
// skips, naming what was not compared.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <map>

#include "engine/core/error.h"
#include "engine/core/write_faults.h"
#include "engine/tensorboard/records.h"
#include "support/test_python.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

constexpr int kSkipped = 77;  // tensorboard_read.py: the package is missing

struct Reader {
  int exitCode = -1;
  QString output;
  Json read;  // the script's JSON when exitCode is 0
};

Reader readWithTensorBoard(const std::string& runDir) {
  QProcess p;
  p.start(testPython(), {QString(NETSMITH_SOURCE_DIR) + "/tests/support/tensorboard_read.py", QString::fromStdString(runDir)});
  p.waitForFinished(300000);
  Reader r;
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.output = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
  const QString errors = QString::fromUtf8(p.readAllStandardError()).trimmed();
  if (r.exitCode == 0) r.read = Json::parse(r.output.toStdString());
  else if (!errors.isEmpty()) r.output += "\n" + errors;
  return r;
}

std::vector<Json> eventsJsonl(const std::string& runDir) {
  std::vector<Json> events;
  std::ifstream in(fs::path(runDir) / "events.jsonl");
  for (std::string line; std::getline(in, line);) events.push_back(Json::parse(line));
  return events;
}

std::vector<fs::path> eventFiles(const std::string& runDir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(runDir))
    if (e.path().filename().string().find("tfevents") != std::string::npos) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The framing of every event file, with engine/tensorboard's own reader: whole records only.
size_t recordsIn(const std::string& runDir) {
  size_t n = 0;
  for (const fs::path& f : eventFiles(runDir)) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    n += tensorboard::readRecords(bytes, f.string()).size();
  }
  return n;
}

using Curve = std::map<int64_t, float>;  // step -> value, as TensorBoard stores it (float32)

// What TensorBoard should show for each tag, from events.jsonl: each figure at its step; a
// resumed session's `started` drops the points after the step it goes on from (TensorBoard's
// reader does the same on the session's START record), and a later point at a step replaces an
// earlier one.
std::map<std::string, Curve> expectedCurves(const std::vector<Json>& events) {
  std::map<std::string, Curve> curves;
  int64_t perEpoch = 0;
  const auto put = [&](const std::string& tag, int64_t step, const Json& value) {
    if (value.is_number()) curves[tag][step] = static_cast<float>(value.get<double>());
  };
  for (const Json& e : events) {
    const std::string kind = e.value("event", "");
    if (kind == "started") {
      perEpoch = e.at("iterations_per_epoch").get<int64_t>();
      if (e.value("resumed", false)) {
        const int64_t start = (e.at("start_epoch").get<int64_t>() - 1) * perEpoch + e.at("start_iteration").get<int64_t>();
        for (auto& [tag, curve] : curves) curve.erase(curve.upper_bound(start), curve.end());
      }
    } else if (kind == "iteration") {
      const int64_t step = e.at("global_iteration").get<int64_t>();
      put("loss/train_iteration", step, e["loss"]);
      put("learning_rate", step, e["lr"]);
      put("throughput/samples_per_s", step, e["samples_per_s"]);
      put("memory/process_mb", step, e["process_memory_mb"]);
      for (const Json& d : e.at("devices")) {
        const std::string prefix = "device/" + d.at("id").get<std::string>() + "/";
        for (const char* figure : {"utilization", "memory_mb", "compute_ms", "data_ms", "sync_ms", "wait_ms"})
          put(prefix + figure, step, d[figure]);
      }
    } else if (kind == "epoch") {
      const int64_t step = e.at("epoch").get<int64_t>() * perEpoch;
      put("loss/train", step, e["train_loss"]);
      put("loss/validation", step, e["validation_loss"]);
      put("validation/error", step, e["validation_error"]);
      put("time/epoch_s", step, e["seconds"]);
    }
  }
  return curves;
}

// Every expected curve is in TensorBoard's reading, point for point (steps once each, in order).
void compareCurves(const Json& read, const std::vector<Json>& events) {
  const std::map<std::string, Curve> expected = expectedCurves(events);
  QVERIFY(expected.count("loss/train") && expected.count("validation/error") && expected.count("loss/train_iteration"));
  const Json& scalars = read.at("scalars");
  for (const auto& [tag, curve] : expected) {
    QVERIFY2(scalars.contains(tag), tag.c_str());
    const Json& points = scalars.at(tag);
    QCOMPARE(points.size(), curve.size());
    size_t i = 0;
    for (const auto& [step, value] : curve) {
      const Json& point = points[i++];
      QCOMPARE(point[0].get<int64_t>(), step);
      QVERIFY2(static_cast<float>(point[1].get<double>()) == value,
               qPrintable(QString("%1 at step %2: TensorBoard %3, events.jsonl %4")
                              .arg(QString::fromStdString(tag)).arg(step).arg(point[1].get<double>()).arg(value)));
    }
  }
}

// Two CPU workers, 8 iterations an epoch, validated on 200 samples. An `iteration` event comes
// at most every 50 ms and at each epoch's end: one or more an epoch, by the machine's speed.
Json tinyProject(int64_t epochs) {
  Json project = smallFashionMlp();
  project["config"]["batch_size"] = 16;
  project["config"]["max_epoch"] = epochs;
  project["parallel"]["devices"] = {"cpu:0", "cpu:1"};
  return project;
}

TrainOptions tinyOptions() {
  TrainOptions options;
  options.trainSamples = 256;
  options.validationSamples = 200;
  return options;
}

QString skipMessage(const Reader& r, const char* what) {
  return QString("TensorBoard's reader is missing (%1): %2 NOT compared with TensorBoard, only the files' framing "
                 "checked; installer/test.sh installs tensorboard into build/test-venv (Note [Test Python])")
      .arg(r.output, what);
}

}  // namespace

class TensorBoardTest : public QObject {
  Q_OBJECT

 private slots:
  void scalarsAndHParamsReadBackInTensorBoard() {
    QTemporaryDir dir;
    const std::string project = saveProject(dir, "tiny", tinyProject(2));
    TrainOptions options = tinyOptions();
    options.hparams = {{"lr", 0.001}, {"solver", "Adam"}, {"augment", false}};
    const TrainedRun run = trainInProcess(dir, project, options);
    QCOMPARE(run.result.status, std::string("completed"));
    const std::string runDir = run.result.runDir;
    const std::vector<Json> events = eventsJsonl(runDir);

    // The per-iteration and per-epoch curves share the step axis: an epoch's last iteration is
    // at epoch × iterations per epoch.
    const int64_t perEpoch = run.events->last("started").at("iterations_per_epoch").get<int64_t>();
    QCOMPARE(perEpoch, int64_t{8});
    for (const Json& e : run.events->ofKind("iteration"))
      if (e.at("iteration") == perEpoch) QCOMPARE(e.at("global_iteration").get<int64_t>(), e.at("epoch").get<int64_t>() * perEpoch);
    QVERIFY(run.events->ofKind("iteration").size() >= 2);
    QCOMPARE(eventFiles(runDir).size(), size_t{1});
    QVERIFY(eventFiles(runDir)[0].filename().string().starts_with("events.out.tfevents."));
    // The version, the HParams experiment and start, every iteration and epoch event, the end.
    QCOMPARE(recordsIn(runDir), 1 + 2 + run.events->ofKind("iteration").size() + 2 + 1);
    // run.json keeps the settings for a resume.
    std::ifstream runJson(fs::path(runDir) / "run.json");
    QCOMPARE(Json::parse(runJson).at("hparams"), options.hparams);

    const Reader r = readWithTensorBoard(runDir);
    if (r.exitCode == kSkipped) QSKIP(qPrintable(skipMessage(r, "the scalars and the HParams records")));
    QVERIFY2(r.exitCode == 0, qPrintable(r.output));
    compareCurves(r.read, events);
    for (const char* id : {"cpu:0", "cpu:1"})
      QVERIFY(r.read["scalars"].contains(std::string("device/") + id + "/utilization"));

    const Json& hp = r.read.at("hparams");
    QCOMPARE(hp.at("experiment").at("hparams"),
             Json({{"lr", "DATA_TYPE_FLOAT64"}, {"solver", "DATA_TYPE_STRING"}, {"augment", "DATA_TYPE_BOOL"}}));
    QCOMPARE(hp.at("experiment").at("metrics"), Json({"validation/error", "loss/validation", "loss/train"}));
    QCOMPARE(hp.at("start").at("hparams"), options.hparams);
    QVERIFY(hp.at("start").at("start_time_secs").get<double>() > 1.6e9);
    QCOMPARE(hp.at("end").at("status"), Json("STATUS_SUCCESS"));
  }

  // A stopped run has no HParams end yet; its resume adds a second file whose steps go on. The
  // stop's checkpoint is removed first, as if the first session had been killed after training
  // epoch 2: the resume trains epoch 2 again, and TensorBoard shows each step once, with the
  // resumed session's figures.
  void resumedRunAddsAFileAndItsStepsGoOn() {
    QTemporaryDir dir;
    const std::string project = saveProject(dir, "tiny", tinyProject(3));
    TrainOptions options = tinyOptions();
    options.hparams = {{"lr", 0.001}};
    const TrainedRun first = trainInProcess(dir, project, options, [](const Json& e, RunControl& control) {
      if (e.value("event", "") == "epoch" && e.value("epoch", 0) == 2) control.requestStop();
    });
    QCOMPARE(first.result.status, std::string("stopped"));
    const std::string runDir = first.result.runDir;

    const Reader stopped = readWithTensorBoard(runDir);
    if (stopped.exitCode != kSkipped) {
      QVERIFY2(stopped.exitCode == 0, qPrintable(stopped.output));
      QVERIFY(stopped.read.at("hparams").contains("start"));
      QVERIFY(!stopped.read.at("hparams").contains("end"));
      QCOMPARE(stopped.read.at("scalars").at("loss/train").back()[0].get<int64_t>(), int64_t{16});
    }

    std::vector<fs::path> checkpoints;
    for (const auto& e : fs::directory_iterator(fs::path(runDir) / "checkpoints")) checkpoints.push_back(e.path());
    std::sort(checkpoints.begin(), checkpoints.end());
    QCOMPARE(checkpoints.size(), size_t{2});  // after epochs 1 and 2 (the stop's is the latter)
    fs::remove(checkpoints.back());

    TrainOptions resume;
    resume.resumeRun = runDir;
    const TrainedRun second = trainInProcess(dir, "", resume);
    QCOMPARE(second.result.status, std::string("completed"));
    QCOMPARE(second.events->last("started").at("start_epoch").get<int64_t>(), int64_t{2});
    QCOMPARE(second.events->last("started").at("start_iteration").get<int64_t>(), int64_t{0});
    QCOMPARE(eventFiles(runDir).size(), size_t{2});

    const Reader r = readWithTensorBoard(runDir);
    if (r.exitCode == kSkipped) QSKIP(qPrintable(skipMessage(r, "the resumed run's steps and HParams end")));
    QVERIFY2(r.exitCode == 0, qPrintable(r.output));
    compareCurves(r.read, eventsJsonl(runDir));
    const Json& losses = r.read.at("scalars").at("loss/train_iteration");
    QCOMPARE(losses.back()[0].get<int64_t>(), int64_t{24});
    QCOMPARE(r.read.at("scalars").at("loss/train").size(), size_t{3});  // epoch 2 once
    QCOMPARE(r.read.at("hparams").at("start").at("hparams"), options.hparams);  // from run.json
    QCOMPARE(r.read.at("hparams").at("end").at("status"), Json("STATUS_SUCCESS"));
  }

  // A TensorBoard file that cannot be written (a full disk), or not even begun, is one warning; the
  // run completes and events.jsonl has every event; the file keeps whole records.
  void fullDiskIsAWarningNotAFailedRun_data() {
    QTest::addColumn<QByteArray>("fault");
    QTest::addColumn<QString>("warning");
    QTest::addColumn<int>("records");
    QTest::newRow("from the third record on")
        << QByteArray("enospc:tfevents:3+") << "TensorBoard files are no longer written for this run" << 2;
    QTest::newRow("its first record") << QByteArray("enospc:tfevents:1+") << "no TensorBoard files for this session" << 0;
  }

  void fullDiskIsAWarningNotAFailedRun() {
    QFETCH(QByteArray, fault);
    QFETCH(QString, warning);
    QFETCH(int, records);
    struct Cleared {
      ~Cleared() { setWriteFaults(""); }
    } cleared;
    QTemporaryDir dir;
    const std::string project = saveProject(dir, "tiny", tinyProject(1));
    setWriteFaults(fault.toStdString());
    const TrainedRun run = trainInProcess(dir, project, tinyOptions());
    setWriteFaults("");
    QCOMPARE(run.result.status, std::string("completed"));
    int tensorboardWarnings = 0;
    for (const std::string& w : run.events->warnings())
      if (w.find("TensorBoard") != std::string::npos) {
        ++tensorboardWarnings;
        QVERIFY2(QString::fromStdString(w).contains(warning) && w.find("No space left on device") != std::string::npos &&
                     w.find("tfevents") != std::string::npos,
                 w.c_str());
      }
    QCOMPARE(tensorboardWarnings, 1);
    const std::vector<Json> events = eventsJsonl(run.result.runDir);
    QCOMPARE(events.back().value("event", ""), std::string("finished"));
    QCOMPARE(events.back().value("status", ""), std::string("completed"));
    // The version and the first iteration's figures, or nothing.
    QCOMPARE(recordsIn(run.result.runDir), static_cast<size_t>(records));
    if (records == 0) return;

    const Reader r = readWithTensorBoard(run.result.runDir);
    if (r.exitCode == kSkipped) QSKIP(qPrintable(skipMessage(r, "the cut file's reading")));
    QVERIFY2(r.exitCode == 0, qPrintable(r.output));
    QCOMPARE(r.read.at("scalars").at("loss/train_iteration").size(), size_t{1});
  }
};

QTEST_GUILESS_MAIN(TensorBoardTest)
#include "tst_tensorboard.moc"
