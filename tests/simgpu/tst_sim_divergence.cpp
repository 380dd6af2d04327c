// Divergence and gradient clipping on simulated GPUs (CTest sets NETSMITH_SIMULATED_GPUS=4 and
// NETSMITH_SIMULATED_GPU_JITTER=1): the fused step's device-side clip (Note [Gradient clipping])
// gives the same parameters_sha256 on 1 and 2 GPUs in reproducible mode and other parameters than
// no clip, and a clip that never triggers changes nothing bit for bit; the diagnosis (Note
// [Divergence diagnosis]) names the layer with a huge weight on a GPU, in float and in half
// (whose activations it reads through a conversion); and Adam at 1e6 on a GPU fails naming a
// layer, the largest gradient norm (read from the device) and advice.
#include <QtTest>

#include <string>

#include "engine/backend/cuda/cuda_device.h"
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

  QString project(const QString& name, double clip) {
    Json p = smallFashionMlp();
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
