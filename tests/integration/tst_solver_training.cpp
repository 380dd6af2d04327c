// The solvers that are more than an element-wise rule train a sample: AdamW (decoupled weight
// decay that follows the schedule) and Lamb (per-tensor trust ratio, Note [Trust ratio]) each take
// a small MLP on the first 1,024 Fashion-MNIST images for three epochs; the training loss falls
// epoch by epoch, under 1, and the validation error (256 images) is under 35%. (LAMB on 2 simulated
// GPUs: tests/simgpu/tst_sim_solver_steps.cpp.)
#include <QTemporaryDir>
#include <QtTest>

#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

Json smallMlp(const Json& optimizer) {
  Json project = smallFashionMlp();
  project["config"] = {{"max_epoch", 3}, {"batch_size", 32}, {"seed", 5}};
  project["optimizer"] = optimizer;
  project["parallel"] = {{"devices", {"cpu:0"}}, {"threads_per_device", 1}};
  return project;
}

}  // namespace

class SolverTrainingTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  void trainsTheSample(const std::string& name, const Json& optimizer) {
    TrainOptions options;
    options.trainSamples = 1024;
    options.validationSamples = 256;
    const TrainedRun run = trainInProcess(m_dir, saveProject(m_dir, name, smallMlp(optimizer)), options);
    QCOMPARE(QString::fromStdString(run.result.status), QString("completed"));
    const std::vector<Json> epochs = run.events->ofKind("epoch");
    QCOMPARE(epochs.size(), size_t(3));
    QString curve;
    for (const Json& e : epochs) curve += QString(" %1/%2").arg(e["train_loss"].get<double>()).arg(e["validation_error"].dump().c_str());
    for (size_t i = 1; i < epochs.size(); ++i)
      QVERIFY2(epochs[i]["train_loss"].get<double>() < epochs[i - 1]["train_loss"].get<double>(),
               qPrintable(QString::fromStdString(name) + ": loss/error by epoch" + curve));
    QVERIFY2(epochs.back()["train_loss"].get<double>() < 1.0, qPrintable(QString::fromStdString(name) + curve));
    QVERIFY2(epochs.back()["validation_error"].get<double>() < 0.35, qPrintable(QString::fromStdString(name) + curve));
  }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void adamWTrains() { trainsTheSample("adamw", {{"solver", "AdamW"}, {"alpha", 0.003}, {"weight_decay", 0.01}}); }

  void lambTrains() {
    trainsTheSample("lamb", {{"solver", "Lamb"}, {"eta", 0.02}, {"bias_correction", true}, {"weight_decay", 0.01}});
  }
};

QTEST_GUILESS_MAIN(SolverTrainingTest)
#include "tst_solver_training.moc"
