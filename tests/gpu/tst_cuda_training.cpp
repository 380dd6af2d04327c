// Training on cuda:0: the LeNet and ResNet networks with their solvers follow the CPU step by step
// (gpu_check.h, synthetic data); a real run on Fashion-MNIST through the trainer, in reproducible
// mode, gives the same parameters_sha256 twice; the trainer on cuda:0 and on every GPU agrees
// after K iterations. Skips when there is no GPU (or, for the real run,
// no dataset).
#include <QtTest>

#include <filesystem>

#include "engine/project/project_io.h"
#include "gpu_check.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::gpucheck;

class TestCudaTraining : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    const std::string why = gpuUnavailableReason("cuda:0");
    if (!why.empty()) QSKIP(qPrintable(QString("no GPU: ") + QString::fromStdString(why)));
  }

  void followsCpu_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<int>("steps");
    QTest::newRow("lenet") << "fashion_mnist_lenet" << 20;
    QTest::newRow("resnet") << "fashion_mnist_resnet" << 4;  // why 4: netsmith_gpu_check.cpp, `all`
    QTest::newRow("mlp") << "fashion_mnist_mlp" << 20;
  }

  void followsCpu() {
    QFETCH(QString, project);
    QFETCH(int, steps);
    const auto path = std::string(NETSMITH_SOURCE_DIR) + "/projects/" + project.toStdString() + ".nsproj";
    const gpucheck::TrainResult r = compareTraining(path, "cuda:0", steps, 64);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY2(r.maxLossError < 1e-3, qPrintable(QString("loss differs by %1").arg(r.maxLossError)));
    QVERIFY2(r.parameterError < 1e-3, qPrintable(QString("parameters differ by %1 (most in %2)")
                                                     .arg(r.parameterError)
                                                     .arg(QString::fromStdString(r.worstParameter))));
  }

  // The trainer for K iterations on cuda:0 and on every GPU present (fast mode, the logical batch
  // kept): the parameters agree to rounding (gpu_check.h, compareDeviceCounts).
  void oneGpuAgainstEveryGpu() {
    if (!std::filesystem::exists(datasetsRoot() + "/fashion-mnist/train-images-idx3-ubyte.gz"))
      QSKIP("Fashion-MNIST is not installed (set DATASETS to the folder that holds fashion-mnist/)");
    const DeviceCountResult r = compareDeviceCounts(
        std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_lenet.nsproj", allGpus(), 20);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY2(r.parameterError < 1e-3,
             qPrintable(QString("parameters differ by %1 (most in %2)").arg(r.parameterError).arg(QString::fromStdString(r.worst))));
  }

  void reproducibleTwice() {
    if (!std::filesystem::exists(datasetsRoot() + "/fashion-mnist/train-images-idx3-ubyte.gz"))
      QSKIP("Fashion-MNIST is not installed (set DATASETS to the folder that holds fashion-mnist/)");
    QTemporaryDir dir;
    Json project = test::sampleProject("fashion_mnist_lenet");
    project["config"]["deterministic"] = true;
    const std::string path = test::saveProject(dir, "lenet_cuda", project);
    std::vector<std::string> shas;
    for (int i = 0; i < 2; ++i) {
      TrainOptions o;
      o.maxEpoch = 1;
      o.trainSamples = 4096;
      o.validationSamples = 512;
      o.devices = {"cuda:0"};
      const test::TrainedRun run = test::trainInProcess(dir, path, o);
      QVERIFY2(run.result.status == "completed", run.result.message.c_str());
      shas.push_back(run.result.parametersSha256);
    }
    QCOMPARE(shas[1], shas[0]);
  }
};

QTEST_GUILESS_MAIN(TestCudaTraining)
#include "tst_cuda_training.moc"
