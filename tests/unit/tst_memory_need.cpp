// estimateMemory (Note [Memory before launch]): the parts of a device's need, validation blocks
// resizing the outputs only, the largest batch found by bisection (it fits, one more does not),
// the trials' workspace cut to half of what is left, and the refusal's text.
#include <QtTest>

#include "engine/train/memory_estimate.h"

using namespace netsmith;

class MemoryNeedTest : public QObject {
  Q_OBJECT

  static MemoryModel gpu() {
    MemoryModel m;
    m.device = "cuda:1";
    m.parameterCount = 1000;
    m.optimizerBuffers = 2;
    m.perSample = {300, 200};  // outputs (with copies), gradients
    m.baseBytes = 10000;
    m.capacityBytes = 1'000'000;
    return m;
  }

 private slots:
  void parts() {
    MemoryModel m = gpu();
    const protocol::DeviceMemoryNeed n = estimateMemory(m, 100);
    QCOMPARE(n.parametersBytes, int64_t{4000});
    QCOMPARE(n.gradientsBytes, int64_t{4000});
    QCOMPARE(n.optimizerStateBytes, int64_t{8000});
    QCOMPARE(n.activationsBytes, int64_t{500 * 100});
    QCOMPARE(n.totalBytes, int64_t{10000 + 16000 + 50000});
    QVERIFY(n.fits());
    // A validation block larger than the batch holds more outputs, not more gradients.
    m.validationBlocks = {256};
    QCOMPARE(estimateMemory(m, 100).activationsBytes, int64_t{300 * 256 + 200 * 100});
    QCOMPARE(estimateMemory(m, 100).validationBlock, int64_t{256});
    QCOMPARE(estimateMemory(m, 300).activationsBytes, int64_t{500 * 300});
  }

  void largestBatchFitsAndOneMoreDoesNot() {
    for (int64_t capacity : {int64_t{120'000}, int64_t{1'000'000}, int64_t{123'456'789}}) {
      MemoryModel m = gpu();
      m.capacityBytes = capacity;
      m.validationBlocks = {256};
      m.convolutionWorkspaceBytes = 1 << 20;
      const protocol::DeviceMemoryNeed n = estimateMemory(m, 64);
      QVERIFY(n.largestBatch >= 1);
      QVERIFY(estimateMemory(m, n.largestBatch).fits());
      QVERIFY(!estimateMemory(m, n.largestBatch + 1).fits());
      QCOMPARE(n.fits(), 64 <= n.largestBatch);
    }
    MemoryModel tiny = gpu();
    tiny.capacityBytes = 5000;  // not even the context
    QCOMPARE(estimateMemory(tiny, 1).largestBatch, int64_t{0});
    QVERIFY(!estimateMemory(tiny, 1).fits());
    MemoryModel unknown = gpu();
    unknown.capacityBytes = 0;  // nothing is refused
    QVERIFY(estimateMemory(unknown, 1 << 30).fits());
  }

  void workspaceIsHalfOfWhatIsLeft() {
    MemoryModel m = gpu();
    m.convolutionWorkspaceBytes = 1 << 30;
    const protocol::DeviceMemoryNeed n = estimateMemory(m, 100);
    const int64_t rest = 10000 + 16000 + 50000;
    QCOMPARE(n.workspaceBytes, (1'000'000 - rest) / 2);
    m.convolutionWorkspaceBytes = 1000;
    QCOMPARE(estimateMemory(m, 100).workspaceBytes, int64_t{1000});
  }

  void cpuWorkersShareTheProcess() {
    MemoryModel m;
    m.device = "cpu";
    m.workers = 2;
    m.parameterCount = 10;
    m.perSample = {100, 100};
    m.baseBytes = 1000;
    m.dataBytes = 500;
    m.readAheadBytesPerSample = 3;
    m.kernelBytesFixed = 7;
    m.kernelBytesPerSample = 5;
    const protocol::DeviceMemoryNeed n = estimateMemory(m, 10);
    QCOMPARE(n.dataBytes, int64_t{500 + 2 * 10 * 3});
    QCOMPARE(n.workspaceBytes, int64_t{7 + 5 * 10});
    QCOMPARE(n.totalBytes, int64_t{1000 + 560 + 2 * (40 + 40 + 2000 + 57)});
    // One block of validation for two workers: one of them holds it.
    m.validationBlocks = {0, 50};
    QCOMPARE(estimateMemory(m, 10).totalBytes, int64_t{1000 + 560 + 2 * (40 + 40 + 57) + 2000 + 100 * 50 + 100 * 10});
  }

  void shortfallNamesTheDeviceAndTheBatch() {
    MemoryModel m = gpu();
    m.capacityBytes = 60'000;
    const protocol::DeviceMemoryNeed n = estimateMemory(m, 1000);
    QVERIFY(!n.fits());
    const QString text = QString::fromStdString(describeShortfall(n));
    QVERIFY2(text.startsWith("cuda:1 needs about") && text.contains("at a batch of 1000 per device") &&
                 text.contains(QString("a batch of at most %1 per device fits").arg(n.largestBatch)),
             qPrintable(text));
    QVERIFY(QString::fromStdString(describeMemoryNeed(n)).contains("Largest batch:"));
  }
};

QTEST_GUILESS_MAIN(MemoryNeedTest)
#include "tst_memory_need.moc"
