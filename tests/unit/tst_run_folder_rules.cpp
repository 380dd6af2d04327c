// The rules behind run folders, without training: the lock, which checkpoints belong to a run
// and which pruning may delete, the settings a resume compares, checked atomic writes and
// appends (with injected faults), the clean-up of temporaries, and the plan's claims.
// netsmith-test-labels: asan
#include <unistd.h>

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "engine/core/atomic_file.h"
#include "engine/core/write_faults.h"
#include "engine/project/project_io.h"
#include "engine/model/checkpoint.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/run_folder.h"

using namespace netsmith;
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

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeRaw(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

QStringList listDir(const fs::path& dir) {
  QStringList names;
  for (const auto& e : fs::directory_iterator(dir)) names << QString::fromStdString(e.path().filename().string());
  names.sort();
  return names;
}

// A checkpoint of run `runId` at (epoch, iteration) with one tiny tensor.
void writeRunCheckpoint(const fs::path& path, const std::string& runId, int64_t epoch, int64_t iteration) {
  CheckpointData data;
  data.meta = {{"epoch", epoch}, {"iteration", iteration}, {"logical_batch", 64}, {"run_id", runId}};
  Tensor t(Shape{2});
  t[0] = static_cast<float>(epoch);
  data.tensors.emplace_back("param/w", std::move(t));
  writeCheckpoint(path.string(), data);
}

// Clears the injected faults whatever a test does.
struct FaultsCleared {
  ~FaultsCleared() { setWriteFaults(""); }
};

}  // namespace

class RunFolderRulesTest : public QObject {
  Q_OBJECT

 private slots:
  void lockRefusesASecondHolderNamingTheProcess() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    {
      auto held = RunFolderLock::acquire(dir);
      // flock locks belong to the open file: a second open in this process is refused too.
      const QString e = errorOf([&] { RunFolderLock::acquire(dir); });
      QVERIFY2(e.contains(QString("in use by process %1").arg(::getpid())) && e.contains(tmp.path()), qPrintable(e));
    }
    auto again = RunFolderLock::acquire(dir);  // released with its holder
    QVERIFY(again);
  }

  void pruningKeepsTheRunsNewestAndLeavesOtherRuns() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    // An old run's checkpoint whose name sorts after all of the new run's (pruning by name kept it).
    writeRunCheckpoint(dir / "e0009_i000000.ckpt", "old", 9, 0);
    for (int e = 1; e <= 4; ++e) writeRunCheckpoint(dir / format("e000{}_i000000.ckpt", e), "new", e, 0);
    pruneCheckpoints(dir, "new", dir / "e0004_i000000.ckpt", 3);
    QCOMPARE(listDir(dir), (QStringList{"e0002_i000000.ckpt", "e0003_i000000.ckpt", "e0004_i000000.ckpt",
                                        "e0009_i000000.ckpt"}));
    // A resume takes the run's own newest, and says why it skipped the other run's.
    std::vector<std::string> rejected;
    QCOMPARE(newestValidCheckpoint(dir.string(), &rejected, "new"), std::optional<std::string>((dir / "e0004_i000000.ckpt").string()));
    QCOMPARE(rejected.size(), size_t{1});
    QVERIFY2(rejected[0].find("belongs to run old") != std::string::npos, rejected[0].c_str());

    // The checkpoint just written stays even when an abandoned (damaged) future of the run sorts
    // after it; that future goes.
    writeRunCheckpoint(dir / "e0007_i000000.ckpt", "new", 7, 0);
    writeRunCheckpoint(dir / "e0005_i000003.ckpt", "new", 5, 3);
    pruneCheckpoints(dir, "new", dir / "e0005_i000003.ckpt", 3);
    QCOMPARE(listDir(dir), (QStringList{"e0003_i000000.ckpt", "e0004_i000000.ckpt", "e0005_i000003.ckpt",
                                        "e0009_i000000.ckpt"}));
  }

  void checkpointsOrderBySamplesNotIterations() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    CheckpointData a;  // 40 iterations of 64 samples
    a.meta = {{"epoch", 1}, {"iteration", 40}, {"logical_batch", 64}};
    CheckpointData b;  // 30 iterations of 128 samples: later, after a resume on twice the devices
    b.meta = {{"epoch", 1}, {"iteration", 30}, {"logical_batch", 128}};
    writeCheckpoint((dir / "e0001_i000040.ckpt").string(), a);
    writeCheckpoint((dir / "e0001_i000030.ckpt").string(), b);
    QCOMPARE(newestValidCheckpoint(dir.string()), std::optional<std::string>((dir / "e0001_i000030.ckpt").string()));
  }

  void settingDifferencesNameTheJsonPaths() {
    const Json before = {{"optimizer", {{"lr", 0.01}, {"solver", "Momentum"}}},
                         {"config", {{"seed", 1}}},
                         {"network", {{"nodes", {{{"id", "x"}}, {{"id", "y"}}}}}}};
    Json after = before;
    after["optimizer"]["lr"] = 0.1;
    after["config"]["seed"] = 2;
    after["config"]["deterministic"] = true;
    after["network"]["nodes"].erase(1);
    const auto d = settingDifferences(before, after);
    const std::vector<std::string> expected{"config.seed: 1 → 2", "config.deterministic: added, true",
                                            "network.nodes[1]: removed", "optimizer.lr: 0.01 → 0.1"};
    QCOMPARE(d, expected);
    QVERIFY(settingDifferences(before, before).empty());
    QCOMPARE(projectSnapshotSha256(Json::parse(before.dump(4))), projectSnapshotSha256(before));
    QVERIFY(projectSnapshotSha256(after) != projectSnapshotSha256(before));
  }

  void aFailedAtomicWriteKeepsTheOldFileAndSaysWhy() {
    FaultsCleared cleared;
    QTemporaryDir tmp;
    const fs::path file = fs::path(tmp.path().toStdString()) / "run.json";
    writeFileAtomically(file, "old\n");
    setWriteFaults("enospc:run.json:1");
    const QString e = errorOf([&] { writeFileAtomically(file, std::string(100000, 'x')); });
    QVERIFY2(e.startsWith(QString::fromStdString(file.string()) + ": cannot write: No space left on device"), qPrintable(e));
    QCOMPARE(readAll(file), std::string("old\n"));
    QCOMPARE(listDir(file.parent_path()), QStringList{"run.json"});  // no temporary left
    writeFileAtomically(file, "new\n");  // the fault was the first write only
    QCOMPARE(readAll(file), std::string("new\n"));
    // Checkpoints go through the same writer, named as checkpoints.
    setWriteFaults("enospc:ckpt:1");
    const QString c = errorOf([&] { writeRunCheckpoint(file.parent_path() / "e0001_i000000.ckpt", "r", 1, 0); });
    QVERIFY2(c.contains("checkpoint ") && c.contains("e0001_i000000.ckpt: cannot write: No space left on device"), qPrintable(c));
    QCOMPARE(listDir(file.parent_path()), QStringList{"run.json"});
  }

  void aFailedAppendLeavesNoTornLine() {
    FaultsCleared cleared;
    QTemporaryDir tmp;
    const fs::path file = fs::path(tmp.path().toStdString()) / "events.jsonl";
    {
      LineAppender out(file);
      out.append("{\"a\":1}\n");
      setWriteFaults("enospc:events.jsonl:1+");
      const QString e = errorOf([&] { out.append("{\"b\":22222222}\n"); });
      QVERIFY2(e == QString::fromStdString(file.string()) + ": cannot append: No space left on device", qPrintable(e));
      QCOMPARE(readAll(file), std::string("{\"a\":1}\n"));
      setWriteFaults("");
      out.append("{\"c\":3}\n");
    }
    QCOMPARE(readAll(file), std::string("{\"a\":1}\n{\"c\":3}\n"));
    // A line torn by a kill is dropped when the file is opened again.
    writeRaw(file, "{\"a\":1}\n{\"b\":2");
    LineAppender reopened(file);
    QCOMPARE(readAll(file), std::string("{\"a\":1}\n"));
    writeRaw(file, "no newline at all");
    LineAppender again(file);
    QCOMPARE(readAll(file), std::string());
  }

  void staleTemporariesAreRemoved() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    for (const char* name : {".e0001_i000000.ckpt.tmp-AbC123", ".run.json.tmp-x1y2z3", "learning_curve.csv.tmp", "run.json",
                             "notes.tmpl", ".hidden"})
      writeRaw(dir / name, "x");
    const auto removed = removeStaleTemporaryFiles(dir);
    QCOMPARE(removed, (std::vector<std::string>{".e0001_i000000.ckpt.tmp-AbC123", ".run.json.tmp-x1y2z3",
                                               "learning_curve.csv.tmp"}));
    QCOMPARE(listDir(dir), (QStringList{".hidden", "notes.tmpl", "run.json"}));
  }

  void aFolderHoldingAnotherRunIsNotFree() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    checkNoOtherRun(dir / "missing", "/p.nsproj");
    checkNoOtherRun(dir, "/p.nsproj");  // empty
    // The GUI writes its snapshot first and trains that file: free.
    writeRaw(dir / "project.nsproj", "{}");
    checkNoOtherRun(dir, (dir / "project.nsproj").string());
    // ... but it is another project's snapshot for any other project file.
    QVERIFY(errorOf([&] { checkNoOtherRun(dir, "/elsewhere/p.nsproj"); }).contains("project.nsproj"));
    // TensorBoard would show a new run's curves as that run's.
    writeRaw(dir / "events.out.tfevents.1700000000.host.42", "");
    QVERIFY(errorOf([&] { checkNoOtherRun(dir, (dir / "project.nsproj").string()); }).contains("(TensorBoard event files)"));
    writeRaw(dir / "run.json", R"({"run_id": "abc"})");
    const QString e = errorOf([&] { checkNoOtherRun(dir, (dir / "project.nsproj").string()); });
    QVERIFY2(e.contains("already holds another run abc") && e.contains("--resume " + tmp.path()), qPrintable(e));
  }

  void writeFaultSpecsAreChecked() {
    FaultsCleared cleared;
    for (const char* bad : {"enospc", "boom:ckpt:1", "enospc:ckpt:0", "enospc::1", "free:lots", "kill:ckpt:x"})
      QVERIFY2(errorOf([&] { setWriteFaults(bad); }).startsWith("NETSMITH_WRITE_FAULT"), bad);
    setWriteFaults("free:123,enospc:a:2");
    QCOMPARE(freeDiskBytes("/"), uint64_t{123});
    QVERIFY(takeWriteFault("x/a.txt") == WriteFault::None);
    QVERIFY(takeWriteFault("x/a.txt") == WriteFault::NoSpace);
    QVERIFY(takeWriteFault("x/a.txt") == WriteFault::None);
  }

  void diskNeedCountsTheKeptCheckpoints() {
    const DiskNeed need = diskNeed(1000000, 2, 3);  // Adam: two buffers per parameter
    QVERIFY(need.checkpointBytes >= 12000000 && need.checkpointBytes < 13000000);
    QVERIFY(need.totalBytes >= 4 * need.checkpointBytes + 3 * 4000000);
  }

  void planClaimsTheSameWeightsOnlyWithKeepLogicalBatch() {
    Project p = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_mlp.nsproj");
    p.config.deterministic = true;
    p.parallel.devices = {"cpu:0", "cpu:1"};
    p.parallel.lrPolicy = "scale_lr";
    const TrainingPlan scaled = planTraining(p, 4096, 1, 2, false);
    QVERIFY(!scaled.identicalAcrossDeviceCounts);
    QVERIFY(scaled.toText().find("repeatable on these devices only") != std::string::npos);
    QVERIFY(std::any_of(scaled.warnings.begin(), scaled.warnings.end(), [](const std::string& w) {
      return w.find("lr_policy scale_lr changes the logical batch and the learning rate") != std::string::npos;
    }));
    p.parallel.lrPolicy = "keep_logical_batch";
    const TrainingPlan kept = planTraining(p, 4096, 1, 2, false);
    QVERIFY(kept.identicalAcrossDeviceCounts);
    QVERIFY(kept.toText().find("the same weights on 1, 2 or 4 devices (lr_policy keep_logical_batch") != std::string::npos);
  }

  void cpuWorkersBeyondFourPerCoreAreRefused() {
    Project p = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_mlp.nsproj");
    p.parallel.devices = {"cpu:7"};
    planTraining(p, 4096, 1, 2, false);  // 4 workers per core on 2 cores: cpu:0..cpu:7
    p.parallel.devices = {"cpu:0", "cpu:99"};
    const QString e = errorOf([&] { planTraining(p, 4096, 1, 2, false); });
    QVERIFY2(e.contains("parallel.devices[1]: \"cpu:99\"") && e.contains("2 cores") && e.contains("cpu:0..cpu:7"), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(RunFolderRulesTest)
#include "tst_run_folder_rules.moc"
