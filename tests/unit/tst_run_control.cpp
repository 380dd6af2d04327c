// The thread code of a run: RunControl (pause / resume / stop from other threads), EventBus
// emitting from several threads, and an in-process training stopped and paused from another
// thread. Runs under ThreadSanitizer in the test command's sanitizer subset.
// netsmith-test-labels: tsan
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "engine/train/events.h"
#include "engine/train/run_control.h"
#include "engine/train/trainer.h"

using namespace netsmith;

namespace {

// Collects events and lets a test wait for one of a kind.
class CollectingSink final : public EventSink {
 public:
  void publish(const Json& e) override {
    std::lock_guard lock(m_mutex);
    m_events.push_back(e);
    m_changed.notify_all();
  }
  bool waitFor(const std::string& kind, int timeoutMs) {
    std::unique_lock lock(m_mutex);
    return m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] { return countLocked(kind) > 0; });
  }
  int count(const std::string& kind) {
    std::lock_guard lock(m_mutex);
    return countLocked(kind);
  }
  size_t size() {
    std::lock_guard lock(m_mutex);
    return m_events.size();
  }

 private:
  int countLocked(const std::string& kind) const {
    int n = 0;
    for (const auto& e : m_events) n += e.value("event", "") == kind;
    return n;
  }
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<Json> m_events;
};

// The MLP sample on 1,280 training images, one thread per device, so the only threads are ours.
std::string writeSmallProject(const QTemporaryDir& dir) {
  std::ifstream in(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_mlp.nsproj");
  Json project = Json::parse(in);
  project["parallel"] = {{"devices", {"cpu:0"}}, {"threads_per_device", 1}};
  project["config"]["max_epoch"] = 50;
  project["dataset"].erase("validation");
  const std::string path = dir.filePath("small.nsproj").toStdString();
  std::ofstream(path) << project.dump(2);
  return path;
}

}  // namespace

class RunControlTest : public QObject {
  Q_OBJECT

 private slots:
  void controlLines() {
    RunControl c;
    QVERIFY(c.apply("pause\r\n"));
    QVERIFY(c.paused());
    QVERIFY(c.apply(" resume "));
    QVERIFY(!c.paused());
    QVERIFY(!c.apply("halt"));
    QVERIFY(!c.stopRequested());
    QVERIFY(c.apply("stop"));
    QVERIFY(c.stopRequested());
  }

  void stopFromAnotherThreadEndsPause() {
    RunControl c;
    c.setPaused(true);
    std::thread other([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      c.requestStop();
    });
    QVERIFY(c.waitWhilePaused());
    other.join();
  }

  void resumeFromAnotherThreadEndsPause() {
    RunControl c;
    c.setPaused(true);
    std::thread other([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      c.setPaused(false);
    });
    QVERIFY(!c.waitWhilePaused());
    other.join();
  }

  void eventBusFromManyThreads() {
    EventBus bus;
    CollectingSink sink;
    bus.add(&sink);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&bus, t] {
        for (int i = 0; i < 200; ++i) bus.publish({{"event", "iteration"}, {"thread", t}, {"i", i}});
      });
    for (auto& t : threads) t.join();
    QCOMPARE(sink.size(), size_t{800});
  }

  void trainingStoppedFromAnotherThread() {
    QTemporaryDir dir;
    const std::string project = writeSmallProject(dir);
    EventBus bus;
    CollectingSink sink;
    bus.add(&sink);
    RunControl control;
    TrainOptions options;
    options.projectPath = project;
    options.runDir = dir.filePath("run").toStdString();
    options.trainSamples = 1280;
    options.events = &bus;
    options.control = &control;
    TrainResult result;
    std::thread trainer([&] { result = runTraining(options); });
    QVERIFY(sink.waitFor("iteration", 120000));
    control.setPaused(true);
    QVERIFY(sink.waitFor("paused", 120000));
    control.setPaused(false);
    QVERIFY(sink.waitFor("resumed", 120000));
    control.requestStop();
    trainer.join();
    QCOMPARE(result.status, std::string("stopped"));
    QCOMPARE(sink.count("checkpoint"), 1 + sink.count("epoch"));
    QCOMPARE(sink.count("finished"), 1);
  }
};

QTEST_GUILESS_MAIN(RunControlTest)
#include "tst_run_control.moc"
