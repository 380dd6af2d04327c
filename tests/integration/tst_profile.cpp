// `netsmith-cli train --profile` (issue 15, item 3; Note [Layer profile]): the per-layer-type
// table, the run folder's profile.json, the `profile` event, and nothing of it without --profile.
#include <QTemporaryDir>
#include <QtTest>
#include <map>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/train/profiler.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

Json readJson(const fs::path& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

// The op types of a project's layers (its Input excluded: the profile counts the batch's copy as
// "data"), and their names.
std::set<std::string> layerTypes(const Json& project) {
  std::set<std::string> out;
  for (const Json& n : project["network"]["nodes"])
    if (n["type"] != "Input") out.insert(n["type"].get<std::string>());
  return out;
}
std::vector<std::string> layerNames(const Json& project) {
  std::vector<std::string> out;
  for (const Json& n : project["network"]["nodes"])
    if (n["type"] != "Input") out.push_back(n["id"].get<std::string>());
  return out;
}

// Checks one worker's profile against the project and the measured iteration.
void checkWorker(const Json& w, const Json& project, int64_t iterations, double iterationMs) {
  QCOMPARE(w.at("iterations").get<int64_t>(), iterations);
  // Exactly the network's op types, each with positive forward and backward time.
  std::set<std::string> types;
  double forward = 0, backward = 0;
  for (const Json& t : w.at("layer_types")) {
    const std::string type = t.at("type");
    QVERIFY2(types.insert(type).second, type.c_str());
    // A fused ReLU's forward runs inside the layer before it (Note [Fused ReLU]): no call of its own.
    const int64_t ownForward = t.at("nodes").get<int64_t>() - t.at("fused_nodes").get<int64_t>();
    if (ownForward > 0) QVERIFY2(t.at("forward_ms").get<double>() > 0, type.c_str());
    else QCOMPARE(t.at("forward_ms").get<double>(), 0.0);
    QVERIFY2(t.at("backward_ms").get<double>() > 0, type.c_str());
    QCOMPARE(t.at("calls").get<int64_t>(), ownForward * iterations);  // one call per unfused node and step
    forward += t.at("forward_ms").get<double>();
    backward += t.at("backward_ms").get<double>();
  }
  QCOMPARE(types, layerTypes(project));
  // Per node: every layer, by name, and the nodes add up to the types.
  std::vector<std::string> names;
  double nodeSum = 0;
  for (const Json& n : w.at("nodes")) {
    names.push_back(n.at("name"));
    nodeSum += n.at("total_ms").get<double>();
  }
  QCOMPARE(names, layerNames(project));
  QVERIFY(std::abs(nodeSum - (forward + backward)) < 1e-9 * (1 + nodeSum));
  QVERIFY(std::abs(forward - w.at("forward_ms").get<double>()) < 1e-9 * (1 + forward));
  QVERIFY(std::abs(backward - w.at("backward_ms").get<double>()) < 1e-9 * (1 + backward));

  // forward + backward + optimizer + data + buckets + all-reduce wait + other = the step, where
  // "other" (what no timer covers: the loss sum, the loss gradient's fill) stays under 25% of it:
  // the timed sections account for at least 75% of the step. The step runs inside the iteration
  // the trainer measures, so it is not longer.
  const double step = w.at("step_ms").get<double>();
  const double optimizer = w.at("optimizer_ms").get<double>();
  const double data = w.at("data_ms").get<double>();
  const double other = w.at("other_ms").get<double>();
  QVERIFY(step > 0);
  QVERIFY(optimizer > 0);
  QVERIFY(data > 0);
  QVERIFY(w.at("buckets_ms").get<double>() >= 0);
  QVERIFY(w.at("allreduce_wait_ms").get<double>() >= 0);
  const double sum = forward + backward + optimizer + data + w.at("buckets_ms").get<double>() +
                     w.at("allreduce_wait_ms").get<double>() + other;
  QVERIFY2(std::abs(sum - step) < 1e-6 * step, qPrintable(QString("sum %1 step %2").arg(sum).arg(step)));
  QVERIFY2(other >= -1e-9 && other <= 0.25 * step, qPrintable(QString("other %1 of step %2 ms").arg(other).arg(step)));
  QVERIFY2(step <= iterationMs * (1 + 1e-9), qPrintable(QString("step %1 > iteration %2 ms").arg(step).arg(iterationMs)));
  QVERIFY(std::abs(w.at("outside_step_ms").get<double>() - (iterationMs - step)) < 1e-9 * (1 + iterationMs));
}

}  // namespace

class ProfileTest : public QObject {
  Q_OBJECT

 private slots:
  // LeNet, 1024 samples = 16 iterations of 64: 5 warm-up, 11 profiled.
  void tableAndProfileJson() {
    QTemporaryDir tmp;
    const QString runDir = tmp.filePath("run");
    const CliRun r = runCli({"train", sourcePath("projects/fashion_mnist_lenet.nsproj"), "--run-dir", runDir,
                             "--devices", "cpu:0", "--train-samples", "1024", "--validation-samples", "256",
                             "--max-epoch", "1", "--profile"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const Json project = sampleProject("fashion_mnist_lenet");

    const fs::path file = fs::path(runDir.toStdString()) / "profile.json";
    QVERIFY(fs::exists(file));
    const Json p = readJson(file);
    QCOMPARE(p.at("format").get<std::string>(), std::string("netsmith-profile"));
    QCOMPARE(p.at("warmup_iterations").get<int>(), netsmith::kProfileWarmupIterations);
    QCOMPARE(p.at("session_iterations").get<int64_t>(), int64_t{16});
    QCOMPARE(p.at("iterations").get<int64_t>(), int64_t{16 - netsmith::kProfileWarmupIterations});
    QCOMPARE(p.at("workers").size(), size_t{1});
    const double iterationMs = p.at("iteration_ms").get<double>();
    QVERIFY(iterationMs > 0);
    const Json& w = p["workers"][0];
    QCOMPARE(w.at("id").get<std::string>(), std::string("cpu:0"));
    QCOMPARE(w.at("buckets_ms").get<double>(), 0.0);  // one worker: no all-reduce
    QCOMPARE(w.at("allreduce_wait_ms").get<double>(), 0.0);
    checkWorker(w, project, p["iterations"], iterationMs);
    // LeNet's three ReLUs are written by conv1, conv2 and fc1 (Note [Fused ReLU]).
    std::map<std::string, std::string> fusedInto;
    for (const Json& n : w.at("nodes"))
      if (n.contains("forward_fused_into")) fusedInto[n.at("name")] = n.at("forward_fused_into");
    QCOMPARE(fusedInto, (std::map<std::string, std::string>{{"relu1", "conv1"}, {"relu2", "conv2"}, {"relu3", "fc1"}}));

    // The table, after the progress output: every layer type and the phases.
    const QByteArray out = r.stdoutText;
    const qsizetype table = out.indexOf("Profile of cpu:0");
    QVERIFY2(table >= 0, out.constData());
    QVERIFY(table > out.indexOf("Finished: completed"));
    QVERIFY(out.indexOf("after 5 warm-up iterations", table) > 0);
    QVERIFY(out.indexOf("wall clock per node", table) > 0);
    for (const std::string& type : layerTypes(project)) QVERIFY2(out.indexOf(type.c_str(), table) > 0, type.c_str());
    QVERIFY(out.indexOf("ReLU (3 fused)", table) > 0);
    for (const char* row : {"forward ms", "backward ms", "share", "optimizer step", "data gather/copy", "all-reduce wait",
                            "other (in the step)", "step (worker)", "iteration (measured)"})
      QVERIFY2(out.indexOf(row, table) > 0, row);
  }

  // With --events -: standard output stays JSON lines, ending with `profile` then `finished`; the
  // table goes to standard error; events.jsonl holds the same event. Two workers: two profiles,
  // the all-reduce's buckets and wait are timed.
  void profileEventWithTwoWorkers() {
    QTemporaryDir tmp;
    const QString runDir = tmp.filePath("run");
    const CliRun r = runCli({"train", sourcePath("projects/fashion_mnist_mlp.nsproj"), "--run-dir", runDir, "--devices",
                             "cpu:0,cpu:1", "--train-samples", "2048", "--validation-samples", "256", "--max-epoch", "1",
                             "--profile", "--events", "-"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    for (const QByteArray& line : r.stdoutText.split('\n'))
      QVERIFY2(line.isEmpty() || line.startsWith('{'), line.constData());
    QVERIFY(r.events.size() >= 2);
    QCOMPARE(r.events[r.events.size() - 2].value("event", ""), std::string("profile"));
    QCOMPARE(r.events.back().value("event", ""), std::string("finished"));
    const Json p = r.last("profile");
    QCOMPARE(p.at("workers").size(), size_t{2});
    const Json project = sampleProject("fashion_mnist_mlp");
    const int64_t session = p.at("session_iterations").get<int64_t>();
    QVERIFY(session > netsmith::kProfileWarmupIterations);
    QCOMPARE(p.at("iterations").get<int64_t>(), session - netsmith::kProfileWarmupIterations);
    for (const Json& w : p["workers"]) {
      checkWorker(w, project, p["iterations"], p["iteration_ms"]);
      QVERIFY(w.at("buckets_ms").get<double>() > 0);
    }
    QVERIFY(r.stderrText.contains("Profile of cpu:0"));
    QVERIFY(r.stderrText.contains("Profile of cpu:1"));

    const fs::path dir = runDir.toStdString();
    const Json file = readJson(dir / "profile.json");
    Json event = p;
    event.erase("event");
    QCOMPARE(file, event);
    std::ifstream events(dir / "events.jsonl");
    std::string line;
    int inFile = 0;
    while (std::getline(events, line)) inFile += Json::parse(line).value("event", "") == "profile";
    QCOMPARE(inFile, 1);
  }

  // Without --profile nothing is timed (no profiler exists, so no step is timed anywhere in this
  // process) and nothing is written; with it, in the same process, every step is.
  void offByDefault() {
    QTemporaryDir tmp;
    const std::string path = saveProject(tmp, "mlp", sampleProject("fashion_mnist_mlp"));
    netsmith::TrainOptions options;
    options.trainSamples = 1024;
    options.validationSamples = 128;
    options.maxEpoch = 1;
    options.devices = {"cpu:0"};
    const TrainedRun off = trainInProcess(tmp, path, options);
    QCOMPARE(off.result.status, std::string("completed"));
    QCOMPARE(netsmith::LayerProfiler::stepsTimed(), int64_t{0});
    QVERIFY(!fs::exists(fs::path(off.result.runDir) / "profile.json"));
    QVERIFY(off.events->ofKind("profile").empty());
    QVERIFY(!off.events->ofKind("iteration").empty());

    options.profile = true;
    const TrainedRun on = trainInProcess(tmp, path, options);
    QCOMPARE(on.result.status, std::string("completed"));
    QCOMPARE(netsmith::LayerProfiler::stepsTimed(), int64_t{16});  // 1024 / 64, warm-up included
    QVERIFY(fs::exists(fs::path(on.result.runDir) / "profile.json"));
    QCOMPARE(on.events->ofKind("profile").size(), size_t{1});
    // Too short a run to profile says so instead of printing zeros.
    Json shortRun = on.events->last("profile");
    shortRun["iterations"] = 0;
    QVERIFY(QString::fromStdString(netsmith::profileTable(shortRun)).contains("no steady-state iteration"));
  }
};

QTEST_GUILESS_MAIN(ProfileTest)
#include "tst_profile.moc"
