// Worker threads when things go wrong (issue 3): a worker that throws, one that stalls before
// the all-reduce, replicas that drift apart, and stop / pause on several workers. Small MLP runs,
// so that the file also runs under ThreadSanitizer.
// netsmith-test-labels: tsan
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <thread>

#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

const std::vector<std::string> kTwo{"cpu:0", "cpu:1"};

std::string smallMlp(const QTemporaryDir& dir, double timeoutS) {
  Json p = sampleProject("fashion_mnist_mlp");
  p["config"]["batch_size"] = 32;
  p["parallel"]["timeout_s"] = timeoutS;
  return saveProject(dir, "faults", p);
}

TrainOptions twoWorkers(int64_t epochs, int64_t trainSamples, std::string fault = "") {
  TrainOptions o;
  o.maxEpoch = epochs;
  o.trainSamples = trainSamples;
  o.validationSamples = 128;
  o.devices = kTwo;
  o.faultInjection = std::move(fault);
  return o;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

class ParallelFaultsTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void workerExceptionEndsTheRunNamingTheDevice() {
    QElapsedTimer timer;
    timer.start();
    const TrainedRun run = trainInProcess(m_dir, smallMlp(m_dir, 60), twoWorkers(1, 640, "throw:cpu:1:3"));
    QCOMPARE(run.result.status, std::string("failed"));
    QVERIFY2(contains(run.result.message, "cpu:1 failed: injected worker exception at iteration 3"), run.result.message.c_str());
    // The other worker was waiting in the all-reduce and left at once, not after the 60 s timeout.
    QVERIFY2(timer.elapsed() < 30000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(run.events->last("finished").value("status", ""), std::string("failed"));
    QVERIFY(contains(run.events->last("error").value("message", ""), "cpu:1"));
    QCOMPARE(run.result.abandonedWorkers, 0);
  }

  void stalledWorkerIsNamedWithinTheTimeout() {
    QElapsedTimer timer;
    timer.start();
    const TrainedRun run = trainInProcess(m_dir, smallMlp(m_dir, 2), twoWorkers(1, 640, "stall:cpu:0:4"));
    const qint64 ms = timer.elapsed();
    QCOMPARE(run.result.status, std::string("failed"));
    QVERIFY2(contains(run.result.message, "cpu:0 did not reach the all-reduce within 2 s"), run.result.message.c_str());
    QVERIFY2(ms >= 2000 && ms < 20000, qPrintable(QString("%1 ms").arg(ms)));
    QCOMPARE(run.result.abandonedWorkers, 0);
  }

  void replicasThatDivergeAreCaught() {
    const TrainedRun run = trainInProcess(m_dir, smallMlp(m_dir, 60), twoWorkers(1, 640, "diverge:cpu:1:2"));
    QCOMPARE(run.result.status, std::string("failed"));
    QVERIFY2(contains(run.result.message, "the replicas differ after epoch 1: cpu:1's parameters"), run.result.message.c_str());
    QVERIFY(contains(run.result.message, "cpu:0's"));
  }

  void stopAndPauseActWithinOneIteration() {
    std::atomic<int> pausedAt{-1};
    std::atomic<bool> resumedSent{false};
    std::thread resumer;
    const TrainedRun run = trainInProcess(
        m_dir, smallMlp(m_dir, 60), twoWorkers(3, 1280), [&](const Json& e, RunControl& control) {
          const std::string kind = e.value("event", "");
          if (kind == "iteration" && e.value("global_iteration", 0) >= 3 && pausedAt < 0) {
            pausedAt = static_cast<int>(e.value("global_iteration", 0));
            control.setPaused(true);
            // Resume from another thread a little later, as the control reader does.
            resumer = std::thread([&control, &resumedSent] {
              std::this_thread::sleep_for(std::chrono::milliseconds(300));
              resumedSent = true;
              control.setPaused(false);
            });
          }
          if (kind == "iteration" && resumedSent && e.value("global_iteration", 0) >= pausedAt + 3) control.requestStop();
        });
    if (resumer.joinable()) resumer.join();
    QCOMPARE(run.result.status, std::string("stopped"));
    const Json paused = run.events->last("paused");
    QVERIFY(!paused.is_null());
    // Paused before the next iteration: the one after the iteration event that asked.
    QCOMPARE(paused.value("global_iteration", 0), pausedAt.load());
    QVERIFY(!run.events->last("resumed").is_null());
    const Json checkpoint = run.events->last("checkpoint");
    // Stop asked after global iteration pausedAt + 3 (iteration events come at most every 50 ms,
    // so at the latest on a later one): the checkpoint is at the very next iteration boundary.
    const Json lastIteration = run.events->last("iteration");
    QCOMPARE(checkpoint.value("global_iteration", 0), lastIteration.value("global_iteration", 0));
  }
};

QTEST_GUILESS_MAIN(ParallelFaultsTest)
#include "tst_parallel_faults.moc"
