// Divergence and gradient clipping on simulated GPUs (CTest sets NETSMITH_SIMULATED_GPUS=4 and
// NETSMITH_SIMULATED_GPU_JITTER=1): the fused step's device-side clip (Note [Gradient clipping])
// gives the same parameters_sha256 on 1 and 2 GPUs in reproducible mode and other parameters than
// no clip, and a clip that never triggers changes nothing bit for bit (in half precision too,
// where the clip sees the gradient after the loss scale is divided out); the diagnosis (Note
// [Divergence diagnosis]) names the layer with a huge weight on a GPU, in float and in half
// (whose activations it reads through a conversion); the fused step itself clips to the norm, records
// the norms and skips the update of a non-finite gradient for every kind of solver; and Adam at 1e6 on a GPU fails naming a
// layer, the largest gradient norm (read from the device) and advice.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/cuda_solver.h"
#include "engine/optim/optimizer.h"
#include "engine/core/rng.h"
#include "engine/model/network.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/divergence_diagnosis.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

class TestSimDivergence : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  QString project(const QString& name, double clip, const std::string& precision = "float") {
    Json p = smallFashionMlp();
    p["config"]["precision"] = precision;
    p["config"]["deterministic"] = true;
    p["config"]["max_epoch"] = 1;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    if (clip != 0) p["optimizer"]["clip_gradient_norm"] = clip;
    return QString::fromStdString(saveProject(m_dir, name.toStdString(), p));
  }

  std::string trainedHash(const QString& project, const QString& devices) {
    const QString runDir = m_dir.filePath(QFileInfo(project).baseName() + "-" + QString(devices).replace(',', '_'));
    const CliRun run = runProcess(cliPath(), {"train", project, "--devices", devices, "--events", "-", "--run-dir",
                                              runDir, "--train-samples", "512", "--validation-samples", "128"});
    const Json finished = run.last("finished");
    if (finished.value("status", "") != "completed") {
      qWarning("%s\n%s", run.stderrText.constData(), finished.dump().c_str());
      return {};
    }
    return finished.value("parameters_sha256", "");
  }

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
  }

  void clipReproducibleOnOneAndTwoGpus() {
    const QString clipped = project("clipped", 0.05);
    const std::string one = trainedHash(clipped, "cuda:0");
    QVERIFY(!one.empty());
    QCOMPARE(trainedHash(clipped, "cuda:0,cuda:1"), one);
    const std::string unclipped = trainedHash(project("unclipped", 0), "cuda:0");
    QVERIFY(!unclipped.empty());
    QVERIFY2(unclipped != one, "a clip at 0.05 changed nothing on the GPU: it did not clip");
    QCOMPARE(trainedHash(project("never", 1e12), "cuda:0"), unclipped);
  }

  // Half precision divides the loss scale (2^16 at first) out before the clip: a clip at 1000,
  // far above the true norms (a few units) and far below the scaled ones, never triggers.
  void halfClipsTheUnscaledGradient() {
    const std::string unclipped = trainedHash(project("half", 0, "half"), "cuda:0");
    QVERIFY(!unclipped.empty());
    QCOMPARE(trainedHash(project("half-clip-1000", 1000, "half"), "cuda:0"), unclipped);
    QVERIFY(trainedHash(project("half-clip", 0.05, "half"), "cuda:0") != unclipped);
  }

  // The fused step on its own: two parameters (70,001 elements: two chunks, and 7), a clip at a
  // tenth of the gradient's norm, then a gradient with a NaN.
  void fusedStepClipsAndSkips_data() {
    QTest::addColumn<QString>("solver");
    QTest::newRow("Sgd") << "Sgd";
    QTest::newRow("Adam") << "Adam";
    QTest::newRow("Lamb") << "Lamb";  // two kernels (Note [Trust ratio]), both gated
  }
  void fusedStepClipsAndSkips() {
    QFETCH(QString, solver);
    OptimizerConfig cfg;
    cfg.solver = solver.toStdString();
    const auto config = Optimizer::create(cfg);
    cuda::CudaDeviceContext device("cuda:0");
    const auto gpu = cuda::makeCudaSolver(*config, device);
    const int64_t sizes[2] = {70001, 7};
    Tensor w[2] = {Tensor(device.deviceAllocator()), Tensor(device.deviceAllocator())},
           g[2] = {Tensor(device.deviceAllocator()), Tensor(device.deviceAllocator())};
    std::vector<float> host[2];
    double squares = 0;
    Rng rng(11);
    for (int k = 0; k < 2; ++k) {
      w[k].resize(Shape{sizes[k]});
      g[k].resize(Shape{sizes[k]});
      host[k].resize(size_t(sizes[k]));
      for (float& v : host[k]) {
        v = rng.uniform(-1.0f, 1.0f);
        squares += double(v) * double(v);
      }
      device.upload(w[k].data(), host[k].data(), sizes[k]);
      device.upload(g[k].data(), host[k].data(), sizes[k]);
    }
    const double norm = std::sqrt(squares);
    const ParamSlot params[2] = {{"fc/W", &w[0], &g[0]}, {"fc/b", &w[1], &g[1]}};
    gpu->setClipNorm(norm / 10);
    gpu->step(params, 0.01);
    GradientNorms record = gpu->gradientNorms();
    QVERIFY2(std::abs(record.last - norm) <= 1e-12 * norm, qPrintable(QString("%1 vs %2").arg(record.last).arg(norm)));
    QCOMPARE(record.steps, int64_t{1});
    QCOMPARE(record.clippedSteps, int64_t{1});
    double clipped = 0;
    for (int k = 0; k < 2; ++k) {
      std::vector<float> back(static_cast<size_t>(sizes[k]));
      device.download(back.data(), g[k].data(), sizes[k]);
      for (float v : back) clipped += double(v) * double(v);
    }
    QVERIFY2(std::abs(std::sqrt(clipped) - norm / 10) <= 1e-5 * norm / 10, qPrintable(QString::number(std::sqrt(clipped))));

    // A NaN in the gradient: the norm is NaN, the update is skipped, the weights stay bit for bit.
    std::vector<float> before(static_cast<size_t>(sizes[0]));
    device.download(before.data(), w[0].data(), sizes[0]);
    host[1][3] = std::numeric_limits<float>::quiet_NaN();
    device.upload(g[1].data(), host[1].data(), sizes[1]);
    gpu->step(params, 0.01);
    record = gpu->gradientNorms();
    QCOMPARE(record.firstNonFiniteStep, int64_t{2});
    QVERIFY(std::isnan(record.last));
    QCOMPARE(record.largestStep, int64_t{1});
    std::vector<float> after(static_cast<size_t>(sizes[0]));
    device.download(after.data(), w[0].data(), sizes[0]);
    QVERIFY(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)) == 0);
  }

  void diagnosisNamesTheLayer_data() {
    QTest::addColumn<int>("precision");
    QTest::newRow("float") << static_cast<int>(Precision::Float);
    QTest::newRow("half") << static_cast<int>(Precision::Half);
  }
  void diagnosisNamesTheLayer() {
    QFETCH(int, precision);
    const Project p = loadProject(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj");
    const Graph graph = buildGraph(p.network, OpRegistry::builtin());
    cuda::CudaDeviceContext device("cuda:0", {static_cast<Precision>(precision), false});
    Network net(graph, device);
    net.initializeParameters(7);
    for (const ParameterRef& blob : net.parameters())  // the host view, uploaded by the next forward
      if (blob.name == "fc2/W")
        for (int64_t i = 0; i < blob.value->size(); ++i) (*blob.value)[i] = 1e38f;
    constexpr int64_t kBatch = 8;
    Tensor x(withBatch(kBatch, graph.input().outputShape)), y(Shape{kBatch, 1});
    Rng rng(3);
    for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0.0f, 1.0f);
    for (int64_t i = 0; i < kBatch; ++i) y[i] = static_cast<float>(i % 10);
    QVERIFY(!findNonFiniteParameters(net));
    net.forward(x, y, true, RandomKey{1, 0, 0, nullptr});
    const auto found = findNonFiniteForward(net);
    QVERIFY(found);
    QCOMPARE(found->block, std::string("fc2"));
    QCOMPARE(found->pass, std::string("forward"));
  }

  void learningRate1e6FailsOnAGpu() {
    Json p = sampleProject("fashion_mnist_mlp");
    p["optimizer"] = {{"solver", "Adam"}, {"alpha", 1e6}};
    p["config"]["max_epoch"] = 1;
    const QString path = QString::fromStdString(saveProject(m_dir, "adam", p));
    const CliRun run = runProcess(cliPath(), {"train", path, "--devices", "cuda:0", "--events", "-", "--run-dir",
                                              m_dir.filePath("adam-run"), "--train-samples", "1024",
                                              "--validation-samples", "128"});
    QCOMPARE(run.exitCode, 1);
    const Json finished = run.last("finished");
    QCOMPARE(finished.value("status", ""), std::string("failed"));
    const Json& d = finished["divergence"];
    QVERIFY2(d.is_object() && d["block"].is_string() && !d["block"].get<std::string>().empty(), finished.dump().c_str());
    QVERIFY2(d["largest_gradient_norm"].is_number(), d.dump().c_str());
    const std::string message = finished.value("message", "");
    QVERIFY2(message.find("lower the learning rate (now 1000000)") != std::string::npos, message.c_str());
    QVERIFY2(message.find("block '" + d["block"].get<std::string>() + "'") != std::string::npos, message.c_str());
  }
};

QTEST_GUILESS_MAIN(TestSimDivergence)
#include "tst_sim_divergence.moc"
