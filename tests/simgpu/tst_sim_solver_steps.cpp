// Every solver folder's step on a simulated GPU (the CUDA fused step's bodies on the host, Note
// [Fused solver step]) against the CPU optimizer (Note [Solver kernels]): the same solver, the
// same gradients, three steps with a moving learning rate and weight decay, a parameter of
// 70,001 elements (two chunks of the fused step, five pieces of the CPU optimizer) and one of 7.
// The element-wise solvers run the same body on both sides; LAMB's per-tensor sums are added in
// another order (block trees over chunks here, vector lanes over pieces there: Note [Trust
// ratio]), so the parameters agree within the fused step's tolerance, 1e-6 relative per step.
// And LAMB trains a sample on 2 simulated GPUs (tests/integration/tst_solver_training.cpp on the CPU).
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/cuda_solver.h"
#include "engine/core/rng.h"
#include "engine/optim/optimizer.h"
#include "engine/project/project.h"
#include "engine/solvers/solver_table.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

Tensor randomValues(int64_t n, uint64_t seed, float scale) {
  Tensor t(Shape{n});
  Rng rng(seed);
  for (int64_t i = 0; i < n; ++i) t[i] = scale * (2.0f * rng.uniform() - 1.0f);
  return t;
}

}  // namespace

class TestSimSolverSteps : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
  }

  void gpuStepMatchesCpu_data() {
    QTest::addColumn<QString>("solver");
    for (const SolverRow& row : solverTable()) QTest::newRow(row.name) << QString::fromLatin1(row.name);
  }
  void gpuStepMatchesCpu() {
    QFETCH(QString, solver);
    OptimizerConfig cfg;
    cfg.solver = solver.toStdString();
    cfg.weightDecay = 1e-3;
    const auto cpu = Optimizer::create(cfg);
    const auto gpuConfig = Optimizer::create(cfg);
    cuda::CudaDeviceContext device("cuda:0");
    const auto gpu = cuda::makeCudaSolver(*gpuConfig, device);

    const int64_t sizes[2] = {70001, 7};
    Tensor cpuW[2], cpuG[2], gpuW[2] = {Tensor(device.deviceAllocator()), Tensor(device.deviceAllocator())},
                             gpuG[2] = {Tensor(device.deviceAllocator()), Tensor(device.deviceAllocator())};
    for (int k = 0; k < 2; ++k) {
      cpuW[k] = randomValues(sizes[k], 10 + uint64_t(k), 1.0f);
      cpuG[k] = Tensor(Shape{sizes[k]});
      gpuW[k].resize(Shape{sizes[k]});
      gpuG[k].resize(Shape{sizes[k]});
      device.upload(gpuW[k].data(), cpuW[k].data(), sizes[k]);
    }
    const ParamSlot cpuSlots[2] = {{"fc/W", &cpuW[0], &cpuG[0]}, {"fc/b", &cpuW[1], &cpuG[1], 0.5f}};
    const ParamSlot gpuSlots[2] = {{"fc/W", &gpuW[0], &gpuG[0]}, {"fc/b", &gpuW[1], &gpuG[1], 0.5f}};
    for (int step = 0; step < 3; ++step) {
      for (int k = 0; k < 2; ++k) {
        cpuG[k] = randomValues(sizes[k], 100 + uint64_t(10 * step + k), 0.5f);
        device.upload(gpuG[k].data(), cpuG[k].data(), sizes[k]);
      }
      const double lr = cpu->baseLearningRate() * (1.0 - 0.2 * step);
      cpu->step(cpuSlots, lr);
      gpu->step(gpuSlots, lr);
      device.synchronize();
      for (int k = 0; k < 2; ++k) {
        std::vector<float> back(size_t(sizes[k]));
        device.download(back.data(), gpuW[k].data(), sizes[k]);
        double worst = 0;
        int64_t at = 0;
        for (int64_t i = 0; i < sizes[k]; ++i) {
          const double e = std::abs(double(back[size_t(i)]) - cpuW[k][i]) / std::max(1.0, std::abs(double(cpuW[k][i])));
          if (e > worst) worst = e, at = i;
        }
        QVERIFY2(worst <= 1e-6 * (step + 1), qPrintable(QString("%1 step %2 %3[%4]: relative difference %5")
                                                             .arg(solver)
                                                             .arg(step + 1)
                                                             .arg(k == 0 ? "fc/W" : "fc/b")
                                                             .arg(at)
                                                             .arg(worst)));
      }
    }
  }

  // A small MLP on the first 512 Fashion-MNIST images for three epochs, LAMB on cuda:0 and cuda:1.
  void lambTrainsOnTwoGpus() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Json project = smallFashionMlp();
    project["config"] = {{"max_epoch", 3}, {"batch_size", 16}, {"seed", 5}};
    project["optimizer"] = {{"solver", "Lamb"}, {"eta", 0.02}, {"bias_correction", true}, {"weight_decay", 0.01}};
    TrainOptions options;
    options.trainSamples = 512;
    options.validationSamples = 128;
    options.devices = {"cuda:0", "cuda:1"};
    const TrainedRun run = trainInProcess(dir, saveProject(dir, "lamb", project), options);
    QCOMPARE(QString::fromStdString(run.result.status + " " + run.result.message), QString("completed "));
    const std::vector<Json> epochs = run.events->ofKind("epoch");
    QCOMPARE(epochs.size(), size_t(3));
    QString curve;
    for (const Json& e : epochs) curve += QString(" %1/%2").arg(e["train_loss"].get<double>()).arg(e["validation_error"].dump().c_str());
    for (size_t i = 1; i < epochs.size(); ++i)
      QVERIFY2(epochs[i]["train_loss"].get<double>() < epochs[i - 1]["train_loss"].get<double>(), qPrintable(curve));
    QVERIFY2(epochs.back()["validation_error"].get<double>() < 0.35, qPrintable(curve));
  }
};

QTEST_GUILESS_MAIN(TestSimSolverSteps)
#include "tst_sim_solver_steps.moc"
