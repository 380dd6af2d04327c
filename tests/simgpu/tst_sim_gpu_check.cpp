// netsmith-gpu-check's multi-GPU checks (tests/gpu/gpu_check.h) on simulated GPUs with jitter,
// so that they are known to work before the day they meet real GPUs: the NCCL check with its
// abort, many times (a rank could be aborted while still in the barrier before it), and the
// trainer on one GPU against every GPU for K iterations.
#include <QtTest>

#include <filesystem>

#include "engine/project/project_io.h"
#include "gpu_check.h"

using namespace netsmith;
using namespace netsmith::gpucheck;

class TestSimGpuCheck : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
  }

  void allGpusListsTheSimulatedOnes() {
    QCOMPARE(allGpus(), (std::vector<std::string>{"cuda:0", "cuda:1", "cuda:2", "cuda:3"}));
  }

  void ncclCheckWithAbort_data() {
    QTest::addColumn<int>("ranks");
    QTest::newRow("2 GPUs") << 2;
    QTest::newRow("4 GPUs") << 4;
  }
  void ncclCheckWithAbort() {
    QFETCH(int, ranks);
    const std::vector<std::string> all = allGpus();
    const std::vector<std::string> devices(all.begin(), all.begin() + ranks);
    for (int repeat = 0; repeat < 8; ++repeat) {
      const std::string failure = checkNccl(devices);
      QVERIFY2(failure.empty(), qPrintable(QString("repeat %1: %2").arg(repeat).arg(QString::fromStdString(failure))));
    }
  }

  // Fast mode on 4 GPUs sums gradients in the simulated NCCL's tree order, one GPU sums none:
  // the parameters after K iterations agree to rounding.
  void trainerOnOneGpuAndOnAll() {
    if (!std::filesystem::exists(datasetsRoot() + "/fashion-mnist/train-images-idx3-ubyte.gz"))
      QSKIP("Fashion-MNIST is not installed (set DATASETS to the folder that holds fashion-mnist/)");
    const DeviceCountResult r =
        compareDeviceCounts(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_lenet.nsproj", allGpus(), 12);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(r.devices, 4);
    QVERIFY2(r.parameterError < 1e-4,
             qPrintable(QString("parameters differ by %1 (most in %2)").arg(r.parameterError).arg(QString::fromStdString(r.worst))));
  }
};

QTEST_GUILESS_MAIN(TestSimGpuCheck)
#include "tst_sim_gpu_check.moc"
