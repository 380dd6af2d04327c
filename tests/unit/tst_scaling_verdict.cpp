// Note [Scaling verdict]: the figures and the sentence, measured against a single-device run or
// estimated from the workers' clocks, and the choice of that single-device run in a runs folder.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/train/scaling_verdict.h"

using namespace netsmith;
namespace fs = std::filesystem;

namespace {

void writeRun(const fs::path& folder, const Json& result) {
  fs::create_directories(folder);
  std::ofstream(folder / "run.json") << Json{{"project", "p.nsproj"}, {"result", result}}.dump(2);
}

Json singleResult(double samplesPerS, const std::string& backend = "cpu", int64_t batch = 64,
                  const std::string& status = "completed", int devices = 1) {
  return {{"status", status}, {"devices", devices}, {"backend", backend}, {"batch_per_device", batch},
          {"samples_per_s", samplesPerS}};
}

}  // namespace

class TestScalingVerdict : public QObject {
  Q_OBJECT
 private slots:
  void measuredAgainstASingleDeviceRun() {
    ScalingInput in;
    in.devices = 2;
    in.gpu = true;
    in.samplesPerS = 1800;
    in.computeSeconds = 16;  // two workers, 8 s each
    in.waitSeconds = 2;
    in.syncSeconds = 6;  // 4 s of it hidden
    in.wallSeconds = 10;
    in.singleDeviceSamplesPerS = 1000;
    in.baselineRun = "20261125-100000";
    const Json v = scalingVerdict(in);
    QCOMPARE(v["speedup"].get<double>(), 1.8);
    QCOMPARE(v["efficiency"].get<double>(), 0.9);
    QCOMPARE(v["allreduce_share"].get<double>(), 6.0 / 18.0);
    QCOMPARE(v["allreduce_hidden"].get<double>(), 4.0 / 6.0);
    QVERIFY(v["single_device_measured"].get<bool>());
    QCOMPARE(v["text"].get<std::string>(),
             std::string("2 GPUs: 1.80× one GPU's samples/s (90%, against run 20261125-100000); all-reduce 33% of "
                         "the step, 67% of it hidden behind the backward pass"));
  }

  // Without a baseline: one device doing all the samples in the workers' summed compute time.
  void estimatedFromTheWorkersClocks() {
    ScalingInput in;
    in.devices = 4;
    in.samplesPerS = 4000;  // 40,000 samples in 10 s
    in.computeSeconds = 32;
    in.wallSeconds = 10;
    in.syncSeconds = 1;
    in.waitSeconds = 3;  // waited longer than the all-reduce took: nothing hidden
    const Json v = scalingVerdict(in);
    QCOMPARE(v["single_device_samples_per_s"].get<double>(), 40000.0 / 32.0);
    QCOMPARE(v["speedup"].get<double>(), 3.2);
    QVERIFY(!v["single_device_measured"].get<bool>());
    QVERIFY(v["baseline_run"].is_null());
    QCOMPARE(v["allreduce_hidden"].get<double>(), 0.0);
    const std::string text = v["text"].get<std::string>();
    QVERIFY2(text.rfind("4 CPU workers: about 3.20× one CPU worker's samples/s (80%, estimated", 0) == 0, text.c_str());
  }

  // The newest completed single-device run of the same backend and batch per device; others,
  // the run itself and folders without a result are passed over.
  void baselineIsTheNewestMatchingRun() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    writeRun(root / "a_old", singleResult(900));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // distinct modification times
    writeRun(root / "b_new", singleResult(1000));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    writeRun(root / "c_gpu", singleResult(5000, "cuda"));
    writeRun(root / "d_batch", singleResult(7000, "cpu", 128));
    writeRun(root / "e_stopped", singleResult(8000, "cpu", 64, "stopped"));
    writeRun(root / "f_two", singleResult(9000, "cpu", 64, "completed", 2));
    fs::create_directories(root / "g_no_result");
    std::ofstream(root / "g_no_result" / "run.json") << "{\"project\": \"p\"}";
    fs::create_directories(root / "h_broken");
    std::ofstream(root / "h_broken" / "run.json") << "{not json";
    writeRun(root / "self", singleResult(9999));

    std::string name;
    const auto found = lastSingleDeviceSamplesPerS(root, root / "self", "cpu", 64, &name);
    QVERIFY(found.has_value());
    QCOMPARE(*found, 1000.0);
    QCOMPARE(name, std::string("b_new"));
    QCOMPARE(lastSingleDeviceSamplesPerS(root, root / "self", "cuda", 64, &name).value_or(0), 5000.0);
    QVERIFY(!lastSingleDeviceSamplesPerS(root, root / "self", "cuda", 32, &name).has_value());
    QVERIFY(!lastSingleDeviceSamplesPerS(root / "missing", root / "self", "cpu", 64, &name).has_value());
  }
};

QTEST_GUILESS_MAIN(TestScalingVerdict)
#include "tst_scaling_verdict.moc"
