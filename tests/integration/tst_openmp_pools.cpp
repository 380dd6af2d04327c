// Note [OpenMP pools] (engine/train/openmp_pools.h): while a run trains, the only OpenMP team
// threads of the process are the workers' own. The trainer's thread once decoded the datasets
// with an OpenMP region, and the pool it kept made libgomp throttle every team's spin-waits (the
// one-worker trainer ran at about half the benchmark's speed). Counted here as threads, in a
// process of its own (this executable), so no earlier test left a pool behind.
#include <QtTest>

#include <filesystem>

#include "engine/train/openmp_pools.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

int threadCount() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// Counts this process's threads at the first iteration event (on the trainer's thread, while
// the workers are idle between two steps: their teams exist).
class ThreadsAtFirstIteration final : public EventSink {
 public:
  void publish(const Json& e) override {
    if (e.value("event", "") == "iteration" && threads < 0) threads = threadCount();
  }
  int threads = -1;
};

}  // namespace

class TestOpenmpPools : public QObject {
  Q_OBJECT
 private slots:
  void onlyTheWorkersTeamsWhileTraining() {
    QTemporaryDir dir;
    Json project = sampleProject("fashion_mnist_mlp");
    project["parallel"]["threads_per_device"] = 2;
    const std::string path = saveProject(dir, "mlp", project);
    TrainOptions o;
    o.projectPath = path;
    o.runDir = dir.filePath("run").toStdString();
    o.maxEpoch = 1;
    o.trainSamples = 1024;
    o.validationSamples = 64;
    o.devices = {"cpu:0"};
    EventBus bus;
    ThreadsAtFirstIteration sink;
    bus.add(&sink);
    o.events = &bus;
    const int before = threadCount();
    const TrainResult result = runTraining(o);
    QCOMPARE(result.status, std::string("completed"));
    // One worker thread and its team's second thread; nothing left by the datasets' decoding.
    QCOMPARE(sink.threads - before, 2);
  }

  void shortLivedThreadReturnsAndRethrows() {
    QCOMPARE(runOnShortLivedThread([] { return 42; }), 42);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, runOnShortLivedThread([]() -> int { throw std::runtime_error("x"); }));
  }
};

QTEST_GUILESS_MAIN(TestOpenmpPools)
#include "tst_openmp_pools.moc"
