// A training step on simulated GPUs never leaves the device idle for the host (Note [Loss read
// after the step is queued], engine/train/replica.cpp): the simulator counts the host waits that
// wait for everything queued on a stream (Note [Draining waits], sim_core.h), and between two
// iteration events of one epoch — nothing but training steps in between — there is none. Before,
// each step had two: the target's upload from pageable memory waited for the previous step, and
// the loss was read back before backward was queued.
#include <QtTest>

#include <cmath>
#include <mutex>

#include "support/simulated_counters.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

int64_t drainingWaits(int devices) { return simulatedCount(devices, &cuda::sim::Device::drainingWaits); }

}  // namespace

class TestSimHostStalls : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() {
    QVERIFY2(!qgetenv("NETSMITH_SIMULATED_GPUS").isEmpty(), "run through CTest, which sets NETSMITH_SIMULATED_GPUS");
    QVERIFY(cuda::gpuRuntime().simulated());
  }

  void noDrainingWaitInATrainingStep_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<int>("gpus");
    QTest::newRow("MLP, 1 GPU") << "fashion_mnist_mlp" << 1;
    QTest::newRow("MLP, 2 GPUs") << "fashion_mnist_mlp" << 2;
    QTest::newRow("LeNet, 1 GPU") << "fashion_mnist_lenet" << 1;
    QTest::newRow("ResNet (running statistics), 1 GPU") << "fashion_mnist_resnet" << 1;
  }
  void noDrainingWaitInATrainingStep() {
    QFETCH(QString, sample);
    QFETCH(int, gpus);
    Json project = sampleProject(sample.toStdString());
    project["config"]["max_epoch"] = 1;
    project["config"]["batch_size"] = 16;
    project["parallel"]["devices"] = Json::array();
    for (int d = 0; d < gpus; ++d) project["parallel"]["devices"].push_back("cuda:" + std::to_string(d));
    TrainOptions options;
    options.trainSamples = 16 * 40;
    options.validationSamples = 32;
    struct Mark {
      int64_t iteration;
      int64_t waits;
    };
    std::mutex mutex;
    std::vector<Mark> marks;  // at each iteration event: the workers are between steps
    const TrainedRun run = trainInProcess(m_dir, saveProject(m_dir, sample.toStdString() + std::to_string(gpus), project),
                                          options, [&](const Json& e, RunControl&) {
                                            if (e.value("event", "") != "iteration") return;
                                            std::lock_guard lock(mutex);
                                            marks.push_back({e.value("iteration", int64_t{0}), drainingWaits(gpus)});
                                          });
    QVERIFY2(run.result.status == "completed", run.result.message.c_str());
    // The first marks include the steps that allocate (cudaMalloc waits for the device): compare
    // from the second mark on.
    QVERIFY2(marks.size() >= 3, qPrintable(QString("only %1 iteration events").arg(marks.size())));
    const Mark& from = marks[1];
    const Mark& to = marks.back();
    QVERIFY(to.iteration > from.iteration);
    QVERIFY2(to.waits == from.waits,
             qPrintable(QString("%1 draining waits in %2 training steps on %3 GPU(s)")
                            .arg(to.waits - from.waits)
                            .arg(to.iteration - from.iteration)
                            .arg(gpus)));
  }

  // The reordered step (loss read last, the optimizer and the running statistics' all-reduce
  // queued before the host waits) trains the very bits 2 CPU workers of one thread train: the
  // simulated GPUs run the same CPU kernels, and a sum over 2 ranks has one order.
  void reorderedStepTrainsTheSameBits_data() {
    QTest::addColumn<QString>("sample");
    QTest::newRow("MLP") << "fashion_mnist_mlp";
    QTest::newRow("ResNet (running statistics)") << "fashion_mnist_resnet";
  }
  void reorderedStepTrainsTheSameBits() {
    QFETCH(QString, sample);
    std::string hashes[2];
    for (int gpu = 0; gpu < 2; ++gpu) {
      Json project = sampleProject(sample.toStdString());
      project["config"]["max_epoch"] = 1;
      project["config"]["batch_size"] = 16;
      project["config"]["deterministic"] = false;
      project["parallel"]["threads_per_device"] = 1;
      project["parallel"]["devices"] = gpu ? Json{"cuda:0", "cuda:1"} : Json{"cpu:0", "cpu:1"};
      TrainOptions options;
      options.trainSamples = 16 * 12;
      options.validationSamples = 32;
      const TrainedRun run =
          trainInProcess(m_dir, saveProject(m_dir, sample.toStdString() + (gpu ? "-gpus" : "-cpus"), project), options);
      QVERIFY2(run.result.status == "completed", run.result.message.c_str());
      hashes[gpu] = run.result.parametersSha256;
    }
    QCOMPARE(QString::fromStdString(hashes[1]), QString::fromStdString(hashes[0]));
  }

  // Note [Device-clock profile]: --profile on a GPU times each section with events and waits once
  // per step (it synchronized before and after every section, 4 waits per layer and step).
  void profileOnTheDeviceClockWaitsOncePerStep() {
    Json project = sampleProject("fashion_mnist_mlp");
    project["config"]["max_epoch"] = 1;
    project["config"]["batch_size"] = 16;
    project["parallel"]["devices"] = {"cuda:0"};
    TrainOptions options;
    options.trainSamples = 16 * 40;
    options.validationSamples = 32;
    options.profile = true;
    std::mutex mutex;
    std::vector<std::pair<int64_t, int64_t>> marks;  // (iteration, draining waits)
    const TrainedRun run = trainInProcess(m_dir, saveProject(m_dir, "profiled", project), options,
                                          [&](const Json& e, RunControl&) {
                                            if (e.value("event", "") != "iteration") return;
                                            std::lock_guard lock(mutex);
                                            marks.emplace_back(e.value("iteration", int64_t{0}), drainingWaits(1));
                                          });
    QVERIFY2(run.result.status == "completed", run.result.message.c_str());
    QVERIFY(marks.size() >= 3);
    const int64_t steps = marks.back().first - marks[1].first, waits = marks.back().second - marks[1].second;
    QVERIFY2(steps > 0 && waits == steps, qPrintable(QString("%1 draining waits in %2 profiled steps").arg(waits).arg(steps)));

    const Json worker = run.events->last("profile").at("workers").at(0);
    QVERIFY2(worker.value("timing", "").rfind("device clock", 0) == 0, worker.dump().c_str());
    const double step = worker.value("step_ms", 0.0);
    const double sections = worker.value("forward_ms", 0.0) + worker.value("backward_ms", 0.0) +
                            worker.value("buckets_ms", 0.0) + worker.value("optimizer_ms", 0.0);
    const double between = worker.value("between_sections_ms", -1.0);
    QVERIFY2(worker.value("forward_ms", 0.0) > 0 && worker.value("backward_ms", 0.0) > 0 &&
                 worker.value("optimizer_ms", 0.0) > 0,
             worker.dump().c_str());
    QVERIFY2(between >= 0, worker.dump().c_str());
    // The sections and the time between them are the device's step, to the events' resolution.
    QVERIFY2(std::abs(sections + between - step) <= 1e-3 * step + 1e-3, worker.dump().c_str());
    QVERIFY2(std::abs(worker.value("other_ms", 1.0)) <= 1e-3 * step + 1e-3, worker.dump().c_str());
    bool affineTimed = false;
    for (const Json& t : worker.at("layer_types"))
      if (t.value("type", "") == "Affine") affineTimed = t.value("forward_ms", 0.0) > 0 && t.value("backward_ms", 0.0) > 0;
    QVERIFY2(affineTimed, worker.dump().c_str());
  }
};

QTEST_GUILESS_MAIN(TestSimHostStalls)
#include "tst_sim_host_stalls.moc"
