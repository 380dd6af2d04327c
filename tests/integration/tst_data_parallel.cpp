// Data-parallel training on N CPU workers (issue 3): the multi-device rules as the `started`
// event reports them, reproducible mode (the same parameters_sha256 on 1, 2 and 4 workers and
// after a resume), fast mode against one worker, worker_load against one device, validation
// spread over the devices. config.precision "bfloat16" on CPU workers: refused where it would
// be emulated or is missing, and reproducible on 1, 2 and 4 workers like float (Note [CPU bfloat16]).
// config.augmentation: reproducible on 1, 2 and 4 workers, and never applied to validation.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "engine/backend/cpu/cpu_precision.h"
#include "engine/model/checkpoint.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

// A project that trains quickly: `sample` with the given config / optimizer / parallel keys
// replaced.
Json variant(const std::string& sample, const Json& config, const Json& optimizer, const Json& parallel) {
  Json p = sampleProject(sample);
  // An empty brace list arrives as null: nothing to change.
  if (config.is_object()) p["config"].update(config);
  if (optimizer.is_object()) p["optimizer"].update(optimizer);
  if (parallel.is_object()) p["parallel"].update(parallel);
  return p;
}

TrainOptions quick(int64_t epochs, int64_t trainSamples, int64_t validationSamples, std::vector<std::string> devices) {
  TrainOptions o;
  o.maxEpoch = epochs;
  o.trainSamples = trainSamples;
  o.validationSamples = validationSamples;
  o.devices = std::move(devices);
  return o;
}

const std::vector<std::string> kOne{"cpu:0"};
const std::vector<std::string> kTwo{"cpu:0", "cpu:1"};
const std::vector<std::string> kFour{"cpu:0", "cpu:1", "cpu:2", "cpu:3"};

// The `started` event of a run that is stopped before its first iteration: the plan as users see it.
Json startedEvent(const QTemporaryDir& dir, const Json& project, std::vector<std::string> devices,
                  std::vector<std::string>* warnings = nullptr, int64_t trainSamples = 6400) {
  const std::string path = saveProject(dir, "rules", project);
  TrainedRun run = trainInProcess(dir, path, quick(1, trainSamples, 256, std::move(devices)),
                                  [](const Json& e, RunControl& c) {
                                    if (e["event"] == "started") c.requestStop();
                                  });
  if (warnings) *warnings = run.events->warnings();
  if (run.result.status != "stopped") qWarning() << "run ended" << run.result.status.c_str() << run.result.message.c_str();
  return run.events->last("started");
}

bool anyContains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

std::vector<Tensor> finalParameters(const TrainedRun& run) {
  const CheckpointData data = readCheckpoint(run.result.runDir + "/parameters.nsparams");
  std::vector<Tensor> out;
  for (const auto& [name, t] : data.tensors) out.push_back(t.clone());
  return out;
}

}  // namespace

class DataParallelTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // --- The rules, each read from the started event -------------------------------------------

  void scaleLrMultipliesBatchAndLearningRate() {
    const Json s = startedEvent(m_dir, sampleProject("fashion_mnist_lenet"), kTwo);  // Adam, alpha 0.001, batch 64
    QCOMPARE(s.value("logical_batch", 0), 128);
    QCOMPARE(s.value("iterations_per_epoch", 0), 6400 / 128);
    QCOMPARE(s.value("lr_policy", ""), std::string("scale_lr"));
    QCOMPARE(s.value("effective_lr", 0.0), 0.002);
    QCOMPARE(s.value("base_lr", 0.0), 0.001);
    QCOMPARE(s["devices"].size(), size_t{2});
    QCOMPARE(s["devices"][1].value("batch", 0), 64);
    QCOMPARE(s["devices"][1].value("threads", 0), 1);  // 2 cores / 2 workers, on this machine and CI
  }

  void keepLogicalBatchSplitsTheBatch() {
    const Json p = variant("fashion_mnist_lenet", {}, {}, {{"lr_policy", "keep_logical_batch"}});
    const Json s = startedEvent(m_dir, p, kFour);
    QCOMPARE(s.value("logical_batch", 0), 64);
    QCOMPARE(s.value("iterations_per_epoch", 0), 100);
    QCOMPARE(s.value("effective_lr", 0.0), 0.001);
    for (const Json& d : s["devices"]) QCOMPARE(d.value("batch", 0), 16);
  }

  void keepLogicalBatchRefusesAnUnevenSplit() {
    const Json p = variant("fashion_mnist_mlp", {{"batch_size", 50}}, {}, {{"lr_policy", "keep_logical_batch"}});
    const std::string path = saveProject(m_dir, "uneven", p);
    const TrainedRun run = trainInProcess(m_dir, path, quick(1, 640, 0, {"cpu:0", "cpu:1", "cpu:2"}));
    QCOMPARE(run.result.status, std::string("failed"));
    QVERIFY2(run.result.message.find("config.batch_size: 50") != std::string::npos, run.result.message.c_str());
    QVERIFY2(run.result.message.find("choose 48 or 51") != std::string::npos, run.result.message.c_str());
  }

  void noneKeepsTheLearningRate() {
    const Json p = variant("fashion_mnist_mlp", {}, {}, {{"lr_policy", "none"}});  // Momentum, lr 0.01
    const Json s = startedEvent(m_dir, p, kTwo);
    QCOMPARE(s.value("logical_batch", 0), 128);
    QCOMPARE(s.value("effective_lr", 0.0), 0.01);
  }

  void updateIntervalIsDividedByTheDevices() {
    const Json p = variant("fashion_mnist_mlp", {}, {{"lr_multiplier", 0.5}, {"lr_update_interval", 40}}, {});
    std::vector<std::string> warnings;
    const Json s = startedEvent(m_dir, p, kFour, &warnings);
    QCOMPARE(s.value("lr_update_interval", 0), 10);
    QVERIFY(!anyContains(warnings, "lr_update_interval"));
    // An interval smaller than the device count: 1 iteration, and a warning that says so.
    const Json q = variant("fashion_mnist_mlp", {}, {{"lr_multiplier", 0.5}, {"lr_update_interval", 3}}, {});
    const Json t = startedEvent(m_dir, q, kFour, &warnings);
    QCOMPARE(t.value("lr_update_interval", 0), 1);
    QVERIFY(anyContains(warnings, "optimizer.lr_update_interval: 3 iteration(s) is less than the 4 devices"));
  }

  void warmupFollowsTheShorterEpoch() {
    const Json p = variant("fashion_mnist_mlp", {}, {{"warmup_epochs", 1}}, {});
    QCOMPARE(startedEvent(m_dir, p, kOne).value("warmup_iterations", 0), 100);
    QCOMPARE(startedEvent(m_dir, p, kTwo).value("warmup_iterations", 0), 50);
  }

  void workerLoadSharesTheBatchAndIdlesZero() {
    const Json p = variant("fashion_mnist_mlp", {}, {}, {{"worker_load", {3, 1, 0}}, {"devices", {"cpu:0", "cpu:1", "cpu:2"}}});
    std::vector<std::string> warnings;
    const Json s = startedEvent(m_dir, p, {"cpu:0", "cpu:1", "cpu:2"}, &warnings);
    QCOMPARE(s.value("active_devices", 0), 2);
    QCOMPARE(s.value("logical_batch", 0), 128);
    QCOMPARE(s["devices"][0].value("batch", 0), 96);
    QCOMPARE(s["devices"][1].value("batch", 0), 32);
    QCOMPARE(s["devices"][2].value("batch", 0), 0);
    QCOMPARE(s["devices"][2].value("idle", false), true);
    QVERIFY(anyContains(warnings, "cpu:2 has worker_load 0"));
  }

  void warnsAboutSmallBatchNormalizationBatches() {
    const Json p = variant("fashion_mnist_resnet", {{"batch_size", 16}}, {}, {});
    std::vector<std::string> warnings;
    startedEvent(m_dir, p, kTwo, &warnings);
    QVERIFY(anyContains(warnings, "BatchNormalization computes its statistics over 16 samples per device"));
    startedEvent(m_dir, variant("fashion_mnist_resnet", {{"batch_size", 32}}, {}, {}), kTwo, &warnings);
    QVERIFY(!anyContains(warnings, "BatchNormalization"));
  }

  void warnsWhenTheLogicalBatchExceedsTheDataset() {
    std::vector<std::string> warnings;
    const Json s = startedEvent(m_dir, sampleProject("fashion_mnist_mlp"), kFour, &warnings, 200);
    QVERIFY(anyContains(warnings, "the logical batch (256 samples: batch_size 64 × 4 devices) is larger than the 200"));
    QCOMPARE(s.value("iterations_per_epoch", 0), 1);
    QCOMPARE(s.value("logical_batch", 0), 200);
  }

  void halfPrecisionNeedsCudaDevices() {
    const Json p = variant("fashion_mnist_mlp", {{"precision", "half"}}, {}, {});
    const TrainedRun run = trainInProcess(m_dir, saveProject(m_dir, "half", p), quick(1, 640, 0, kOne));
    QCOMPARE(run.result.status, std::string("failed"));
    QVERIFY2(run.result.message.find("config.precision: \"half\" computes in fp16 on CUDA devices only") != std::string::npos,
             run.result.message.c_str());
  }

  // The plan runs in a child process: DNNL_MAX_CPU_ISA (read once by oneDNN) makes this CPU look
  // like one without BF16 instructions, or without AVX-512.
  void bfloat16NeedsTheCpuToHaveIt() {
    if (cpu::bf16Support() == cpu::Bf16Support::None) QSKIP("this CPU has no bf16 primitives at all");
    const std::string path =
        saveProject(m_dir, "bf16", variant("fashion_mnist_mlp", {{"precision", "bfloat16"}}, {}, {}));
    const QStringList dryRun{"train", QString::fromStdString(path), "--dry-run"};
    const auto planWith = [&](const char* isa, const char* emulate) {
      if (isa) qputenv("DNNL_MAX_CPU_ISA", isa);
      if (emulate) qputenv("NETSMITH_CPU_BF16", emulate);
      const CliRun run = runCli(dryRun);
      qunsetenv("DNNL_MAX_CPU_ISA");
      qunsetenv("NETSMITH_CPU_BF16");
      return run;
    };
    if (cpu::bf16Support() == cpu::Bf16Support::Native) {
      const CliRun native = planWith(nullptr, nullptr);
      QVERIFY2(native.exitCode == 0, native.stderrText.constData());
      QVERIFY2(native.stdoutText.contains("Precision:            bfloat16 (bf16 products") &&
                   native.stdoutText.contains("bf16 on this CPU: native"),
               native.stdoutText.constData());
    }
    const CliRun emulated = planWith("AVX512_CORE", nullptr);
    QVERIFY(emulated.exitCode != 0);
    QVERIFY2(emulated.stderrText.contains("\"bfloat16\" on this CPU would be emulated") &&
                 emulated.stderrText.contains("NETSMITH_CPU_BF16=emulate"),
             emulated.stderrText.constData());
    const CliRun asked = planWith("AVX512_CORE", "emulate");
    QVERIFY2(asked.exitCode == 0, asked.stderrText.constData());
    QVERIFY2(asked.stdoutText.contains("bf16 on this CPU: emulated"), asked.stdoutText.constData());
    const CliRun none = planWith("AVX2", "emulate");
    QVERIFY(none.exitCode != 0);
    QVERIFY2(none.stderrText.contains("\"bfloat16\" is not available on this CPU"), none.stderrText.constData());
  }

  void dryRunPrintsThePlan() {
    const std::string path = saveProject(m_dir, "dry", sampleProject("fashion_mnist_mlp"));
    const CliRun run = runCli({"train", QString::fromStdString(path), "--dry-run", "--json", "--devices", "cpu:0,cpu:1"});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.events.size(), size_t{1});
    const Json& plan = run.events[0];
    QCOMPARE(plan.value("event", ""), std::string("plan"));
    QCOMPARE(plan.value("logical_batch", 0), 128);
    QCOMPARE(plan.value("iterations_per_epoch", 0), 60000 / 128);
    const CliRun text = runCli({"train", QString::fromStdString(path), "--dry-run", "--devices", "cpu:0,cpu:1"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.stdoutText.contains("Logical batch:        128 (batch_size 64 × 2 devices: lr_policy scale_lr)"),
             text.stdoutText.constData());
    const CliRun bad = runCli({"train", QString::fromStdString(path), "--dry-run", "--devices", "cpu:0,gpu:1"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.stderrText.contains("--devices: expected a comma-separated list"), bad.stderrText.constData());
  }

  // --- Reproducible mode -----------------------------------------------------------------------

  void reproducibleModeIsIdenticalOn1_2_4Workers_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<int>("trainSamples");
    QTest::addColumn<QString>("precision");
    QTest::newRow("LeNet with Dropout") << "fashion_mnist_lenet" << 768 << "float";
    QTest::newRow("ResNet (BatchNormalization)") << "fashion_mnist_resnet" << 256 << "float";
    QTest::newRow("LeNet with Dropout, bfloat16") << "fashion_mnist_lenet" << 768 << "bfloat16";
    QTest::newRow("ResNet (BatchNormalization), bfloat16") << "fashion_mnist_resnet" << 256 << "bfloat16";
  }
  void reproducibleModeIsIdenticalOn1_2_4Workers() {
    QFETCH(QString, sample);
    QFETCH(int, trainSamples);
    QFETCH(QString, precision);
    if (precision == "bfloat16" && cpu::bf16Support() != cpu::Bf16Support::Native)
      QSKIP("this CPU has no bf16 instructions: the plan refuses bfloat16 (bfloat16NeedsTheCpuToHaveIt)");
    Json p = variant(sample.toStdString(), {{"deterministic", true}, {"precision", precision.toStdString()}}, {},
                     {{"lr_policy", "keep_logical_batch"}});
    if (sample.contains("lenet"))
      insertAfter(p, firstNodeOfType(p, "ReLU"), "drop", "Dropout", {{"p", 0.25}});
    const std::string path = saveProject(m_dir, "repro-" + sample.toStdString(), p);
    std::vector<std::string> shas;
    std::vector<Json> validation;
    for (const auto& devices : {kOne, kTwo, kFour}) {
      const TrainedRun run = trainInProcess(m_dir, path, quick(2, trainSamples, 256, devices));
      QCOMPARE(run.result.status, std::string("completed"));
      QVERIFY(run.events->last("started").value("identical_across_device_counts", false));
      shas.push_back(run.result.parametersSha256);
      validation.push_back(run.events->last("epoch"));
    }
    QCOMPARE(shas[1], shas[0]);
    QCOMPARE(shas[2], shas[0]);
    if (precision == "bfloat16") {
      // The same run in float ends elsewhere: bf16 really computed.
      p["config"]["precision"] = "float";
      const std::string floatPath = saveProject(m_dir, "repro-float-" + sample.toStdString(), p);
      const TrainedRun f = trainInProcess(m_dir, floatPath, quick(2, trainSamples, 256, kOne));
      QCOMPARE(f.result.status, std::string("completed"));
      QVERIFY(f.result.parametersSha256 != shas[0]);
    }
    // Validation blocks are combined in a fixed order: the same figures, exactly.
    for (size_t i = 1; i < validation.size(); ++i) {
      QCOMPARE(validation[i].value("validation_loss", -1.0), validation[0].value("validation_loss", -2.0));
      QCOMPARE(validation[i].value("validation_error", -1.0), validation[0].value("validation_error", -2.0));
    }
  }

  // config.augmentation (Note [Augmentation draws]): each sample's transforms are keyed by (seed,
  // epoch, sample index), so reproducible mode still gives one parameters_sha256 on 1, 2 and 4
  // workers; and the augmented run really trains on other inputs than the plain one.
  void reproducibleAugmentationIsIdenticalOn1_2_4Workers() {
    Json p = variant("fashion_mnist_lenet", {{"deterministic", true}}, {}, {{"lr_policy", "keep_logical_batch"}});
    const Json plain = p;
    p["config"]["augmentation"] = {{"flip_horizontal", true}, {"crop_padding", 2}, {"rotation_degrees", 10}, {"brightness", 0.2}};
    const std::string path = saveProject(m_dir, "repro-augmented", p);
    std::vector<std::string> shas;
    for (const auto& devices : {kOne, kTwo, kFour}) {
      const TrainedRun run = trainInProcess(m_dir, path, quick(2, 384, 64, devices));
      QCOMPARE(run.result.status, std::string("completed"));
      const Json started = run.events->last("started");
      QVERIFY(started.value("identical_across_device_counts", false));
      QCOMPARE(started.value("augmentation", std::string()),
               std::string("horizontal flip, crop padding 2, rotation ±10°, brightness ±0.2"));
      shas.push_back(run.result.parametersSha256);
    }
    QCOMPARE(shas[1], shas[0]);
    QCOMPARE(shas[2], shas[0]);
    const std::string plainPath = saveProject(m_dir, "repro-not-augmented", plain);
    const TrainedRun without = trainInProcess(m_dir, plainPath, quick(2, 384, 64, kOne));
    QCOMPARE(without.result.status, std::string("completed"));
    QCOMPARE(without.events->last("started").value("augmentation", std::string()), std::string("off"));
    QVERIFY(without.result.parametersSha256 != shas[0]);
  }

  // Augmentation is for training only: with weights that cannot move (alpha 1e-30 changes no
  // weight of float size), the training loss differs with augmentation on and off, while the
  // validation figures, computed on the stored samples, are the same. Fast mode: the other
  // training gather (reproducible mode's is the test above).
  void validationIsNotAugmented() {
    Json p = variant("fashion_mnist_lenet", {}, {{"alpha", 1e-30}}, {});
    const std::string plainPath = saveProject(m_dir, "still-plain", p);
    p["config"]["augmentation"] = {{"flip_vertical", true}, {"rotation_degrees", 30}, {"contrast", 0.5}, {"shift", 0.2}};
    const std::string augmentedPath = saveProject(m_dir, "still-augmented", p);
    const TrainedRun plain = trainInProcess(m_dir, plainPath, quick(1, 256, 256, kOne));
    const TrainedRun augmented = trainInProcess(m_dir, augmentedPath, quick(1, 256, 256, kOne));
    QCOMPARE(plain.result.status, std::string("completed"));
    QCOMPARE(augmented.result.status, std::string("completed"));
    const Json a = plain.events->last("epoch"), b = augmented.events->last("epoch");
    const double trainA = a.value("train_loss", 0.0), trainB = b.value("train_loss", 0.0);
    QVERIFY2(std::abs(trainA - trainB) > 1e-3 * std::abs(trainA), qPrintable(QString("%1 vs %2").arg(trainA).arg(trainB)));
    const double validA = a.value("validation_loss", -1.0), validB = b.value("validation_loss", -2.0);
    QVERIFY2(std::abs(validA - validB) <= 1e-6 * std::abs(validA), qPrintable(QString("%1 vs %2").arg(validA).arg(validB)));
    QCOMPARE(b.value("validation_error", -1.0), a.value("validation_error", -2.0));
  }

  void reproducibleResumeEqualsUninterrupted() {
    const Json p = variant("fashion_mnist_resnet", {{"deterministic", true}}, {}, {{"lr_policy", "keep_logical_batch"}});
    const std::string path = saveProject(m_dir, "repro-resume", p);
    const TrainedRun whole = trainInProcess(m_dir, path, quick(2, 320, 64, kTwo));
    QCOMPARE(whole.result.status, std::string("completed"));
    // Stopped in the middle of the first epoch ...
    const TrainedRun stopped = trainInProcess(m_dir, path, quick(2, 320, 64, kTwo), [](const Json& e, RunControl& c) {
      if (e["event"] == "iteration" && e.value("global_iteration", 0) >= 2) c.requestStop();
    });
    QCOMPARE(stopped.result.status, std::string("stopped"));
    // ... and resumed: the same weights, bit for bit.
    TrainOptions resume;
    resume.resumeRun = stopped.result.runDir;
    const TrainedRun resumed = trainInProcess(m_dir, "", resume);
    QCOMPARE(resumed.result.status, std::string("completed"));
    QVERIFY(!resumed.events->ofKind("resumed_from_checkpoint").empty());
    QCOMPARE(resumed.result.parametersSha256, whole.result.parametersSha256);
  }

  // --- Fast mode --------------------------------------------------------------------------------

  // Same logical batch on 1 and 2 workers: the sums differ only in their order, so the loss
  // curves agree to float rounding, which training amplifies slowly: within 1% after 3 epochs.
  void fastModeFollowsTheSingleDeviceCurve() {
    const Json p = variant("fashion_mnist_mlp", {}, {}, {{"lr_policy", "keep_logical_batch"}});
    const std::string path = saveProject(m_dir, "fast", p);
    const TrainedRun one = trainInProcess(m_dir, path, quick(3, 1920, 512, kOne));
    const TrainedRun two = trainInProcess(m_dir, path, quick(3, 1920, 512, kTwo));
    QCOMPARE(one.result.status, std::string("completed"));
    QCOMPARE(two.result.status, std::string("completed"));
    const auto a = one.events->ofKind("epoch");
    const auto b = two.events->ofKind("epoch");
    QCOMPARE(a.size(), size_t{3});
    QCOMPARE(b.size(), size_t{3});
    for (size_t e = 0; e < a.size(); ++e) {
      for (const char* key : {"train_loss", "validation_loss"}) {
        const double x = a[e].value(key, 0.0), y = b[e].value(key, 0.0);
        QVERIFY2(std::abs(x - y) <= 0.01 * std::abs(x), qPrintable(QString("epoch %1 %2: %3 vs %4").arg(e + 1).arg(key).arg(x).arg(y)));
      }
    }
    // The second worker did half of every iteration and the figures say so.
    const Json it = two.events->last("iteration");
    QCOMPARE(it["devices"].size(), size_t{2});
    for (const Json& d : it["devices"]) {
      QVERIFY(d.value("compute_ms", 0.0) > 0);
      QVERIFY(d.value("sync_ms", -1.0) >= 0);
      QVERIFY(d.value("wait_ms", -1.0) >= 0);
      QVERIFY(d.value("utilization", -1.0) >= 0 && d.value("utilization", 2.0) <= 1);
      QVERIFY(d.value("memory_mb", 0.0) > 0);
    }
    const Json scaling = two.events->last("epoch")["scaling"];
    QCOMPARE(scaling.value("devices", 0), 2);
    QVERIFY(scaling.value("samples_per_s", 0.0) > 0);
    QVERIFY(scaling.value("communication_share", -1.0) >= 0 && scaling.value("communication_share", 2.0) < 1);
    QVERIFY(scaling.value("speedup_estimate", 0.0) > 0);
    // Note [Scaling verdict]: CPU workers get one too; no GPU summary for them.
    const Json finished = two.events->last("finished");
    const std::string verdict = finished["scaling_verdict"].value("text", "");
    QVERIFY2(verdict.rfind("2 CPU workers: ", 0) == 0 && verdict.find("all-reduce") != std::string::npos, verdict.c_str());
    QVERIFY(!finished.contains("gpus"));
    QVERIFY(!one.events->last("finished").contains("scaling_verdict"));
  }

  // Loads [3, 1]: the two devices' slices (48 + 16 samples) weighted by share give the update of
  // one device over the same 64 samples, to float rounding.
  void workerLoadEqualsTheSingleDeviceUpdate() {
    const Json p = variant("fashion_mnist_mlp", {}, {}, {{"lr_policy", "keep_logical_batch"}});
    const Json loaded = variant("fashion_mnist_mlp", {}, {}, {{"lr_policy", "keep_logical_batch"}, {"worker_load", {3, 1}}, {"devices", kTwo}});
    const TrainedRun one = trainInProcess(m_dir, saveProject(m_dir, "single", p), quick(1, 192, 64, kOne));
    const TrainedRun two = trainInProcess(m_dir, saveProject(m_dir, "loaded", loaded), quick(1, 192, 64, kTwo));
    QCOMPARE(two.events->last("started")["devices"][0].value("batch", 0), 48);
    QCOMPARE(two.events->last("started")["devices"][1].value("batch", 0), 16);
    const auto a = finalParameters(one), b = finalParameters(two);
    QCOMPARE(a.size(), b.size());
    double worst = 0;
    for (size_t t = 0; t < a.size(); ++t)
      for (int64_t i = 0; i < a[t].size(); ++i)
        worst = std::max(worst, static_cast<double>(std::abs(a[t][i] - b[t][i])) / (std::abs(a[t][i]) + 1e-3));
    qInfo() << "largest relative difference after 3 updates:" << worst;
    QVERIFY2(worst < 1e-4, qPrintable(QString::number(worst)));
    QVERIFY(one.result.parametersSha256 != std::string());
  }
};

QTEST_GUILESS_MAIN(DataParallelTest)
#include "tst_data_parallel.moc"
