// Note [16-bit activations] on simulated GPUs, which store the same 16-bit bits a GPU stores:
// which layers keep 16-bit activations (the Input and the loss never; NETSMITH_ACTIVATIONS=float32
// and config.precision float none), that the values are stored in 16 bits (every prediction value
// is one of the format's), what it saves in memory, that one step's parameter gradients stay
// within the format's rounding of float32's — through a fan-out whose readers differ in storage,
// so the network converts both ways — and that the samples train as they do in float32.
#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/core/half_floats.h"
#include "engine/core/rng.h"
#include "engine/model/network.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/trainer.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

Graph graphOf(const Json& project) { return buildGraph(parseProject(project, "").network, OpRegistry::builtin()); }

// Input (8) → a: Affine (6) → t: Tanh (float32 on GPUs) and r: ReLU (16-bit); s = Add2(t, r) →
// Affine (3) → SquaredError. a's output gradient is the sum of a 16-bit and a float32 one.
Json mixedFanOut() {
  Json nodes = Json::array();
  nodes.push_back({{"id", "x"}, {"type", "Input"}, {"params", {{"shape", {8}}}}});
  nodes.push_back({{"id", "a"}, {"type", "Affine"}, {"params", {{"n_outmaps", {6}}}}});
  nodes.push_back({{"id", "t"}, {"type", "Tanh"}});
  nodes.push_back({{"id", "r"}, {"type", "ReLU"}});
  nodes.push_back({{"id", "s"}, {"type", "Add2"}});
  nodes.push_back({{"id", "out"}, {"type", "Affine"}, {"params", {{"n_outmaps", {3}}}}});
  nodes.push_back({{"id", "loss"}, {"type", "SquaredError"}});
  Json links = Json::array({{{"from", "x"}, {"to", "a"}},
                            {{"from", "a"}, {"to", "t"}},
                            {{"from", "a"}, {"to", "r"}},
                            {{"from", "t"}, {"to", "s"}, {"port", 0}},
                            {{"from", "r"}, {"to", "s"}, {"port", 1}},
                            {{"from", "s"}, {"to", "out"}},
                            {{"from", "out"}, {"to", "loss"}}});
  return {{"format", "netsmith-project"},
          {"version", 1},
          {"name", "mixed_fan_out"},
          {"network", {{"nodes", nodes}, {"links", links}}},
          {"dataset", {{"training", {{"format", "csv"}, {"csv", "train.csv"}}}}}};
}

// A batch for the graph: inputs in [-1, 1]; labels a class index or values in [-1, 1].
struct Batch {
  Tensor x, y;
};
Batch batchFor(const Graph& graph, int64_t rows) {
  Rng rng(17);
  Batch b{Tensor(withBatch(rows, graph.nodes.at(0).outputShape)), Tensor()};
  for (int64_t i = 0; i < b.x.size(); ++i) b.x[i] = rng.uniform(-1.0f, 1.0f);
  if (graph.loss().schema->lossTarget == LossTarget::ClassIndex) {
    b.y = Tensor(Shape{rows, 1});
    for (int64_t i = 0; i < rows; ++i) b.y[i] = static_cast<float>(rng.next() % 10);
  } else {
    b.y = Tensor(withBatch(rows, graph.prediction().outputShape));
    for (int64_t i = 0; i < b.y.size(); ++i) b.y[i] = rng.uniform(-1.0f, 1.0f);
  }
  return b;
}

struct Step {
  std::vector<float> grads;  // every parameter gradient, in graph order
  double loss = 0;
};

// One training step's gradients on a simulated GPU in `precision`.
Step stepOn(const Graph& graph, Precision precision, const Batch& batch) {
  cuda::CudaDeviceContext device("cuda:0", {precision, false});
  Network net(graph, device);
  net.initializeParameters(7);
  const Tensor& loss = net.forward(batch.x, batch.y, true, RandomKey{1, 0, 0, nullptr});
  Step step;
  for (int64_t i = 0; i < loss.size(); ++i) step.loss += loss[i];
  net.backward(1.0f);  // the summed loss: no gradient near half's underflow (the trainer scales the loss)
  for (const ParameterRef& p : net.parameters())
    if (p.grad) step.grads.insert(step.grads.end(), p.grad->data(), p.grad->data() + p.grad->size());
  return step;
}

double relativeDistance(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    n += double(b[i]) * b[i];
  }
  return std::sqrt(d / std::max(n, 1e-30));
}

bool representable(float v, Storage s) {
  if (s == Storage::BFloat16) return bfloat16ToFloat(floatToBFloat16(v)) == v;
  return halfToFloat(floatToHalf(v)) == v;
}

}  // namespace

class TestSimHalfActivations : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() {
    QVERIFY2(!qgetenv("NETSMITH_SIMULATED_GPUS").isEmpty(), "run through CTest, which sets NETSMITH_SIMULATED_GPUS");
  }

  void layersThatStore16Bits() {
    const Graph graph = graphOf(sampleProject("fashion_mnist_resnet"));
    {
      cuda::CudaDeviceContext device("cuda:0", {Precision::BFloat16, false});
      QCOMPARE(device.activationStorage(), Storage::BFloat16);
      Network net(graph, device);
      int narrow = 0;
      for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const GraphNode& node = graph.nodes[i];
        const Storage s = net.storageOf(static_cast<int>(i));
        if (node.schema->isInput || node.schema->isLoss()) {
          QVERIFY2(s == Storage::Float32, node.id.c_str());
          continue;
        }
        // ResNet's layers all have 16-bit GPU kernels.
        for (const char* type : {"Convolution", "BatchNormalization", "ReLU", "Add2", "Affine", "MaxPooling",
                                 "AveragePooling", "GlobalAveragePooling"})
          if (node.schema->name == type) QVERIFY2(s == Storage::BFloat16, (node.id + " " + type).c_str());
        narrow += s == Storage::BFloat16;
        // Note [Channels last]: image layers NHWC; Affine reads memory in NCHW order.
        const Layout l = net.layoutOf(static_cast<int>(i));
        if (node.schema->name == "Convolution" || node.schema->name == "BatchNormalization")
          QVERIFY2(l == Layout::ChannelsLast, node.id.c_str());
        if (node.schema->name == "Affine") QVERIFY2(l == Layout::ChannelsFirst, node.id.c_str());
      }
      QVERIFY(narrow >= 10);
    }
    {
      qputenv("NETSMITH_CHANNELS_LAST", "off");
      cuda::CudaDeviceContext device("cuda:0", {Precision::BFloat16, false});
      qunsetenv("NETSMITH_CHANNELS_LAST");
      QVERIFY(!device.channelsLast());
      Network net(graph, device);
      for (size_t i = 0; i < graph.nodes.size(); ++i) QVERIFY(net.layoutOf(static_cast<int>(i)) == Layout::ChannelsFirst);
    }
    for (const bool keepFloat : {true, false}) {
      if (keepFloat) qputenv("NETSMITH_ACTIVATIONS", "float32");
      cuda::CudaDeviceContext device("cuda:0", {keepFloat ? Precision::Half : Precision::Float, false});
      qunsetenv("NETSMITH_ACTIVATIONS");
      QCOMPARE(device.activationStorage(), Storage::Float32);
      Network net(graph, device);
      for (size_t i = 0; i < graph.nodes.size(); ++i) QVERIFY(net.storageOf(static_cast<int>(i)) == Storage::Float32);
    }
    cuda::CudaDeviceContext half("cuda:0", {Precision::Half, false});
    QCOMPARE(half.activationStorage(), Storage::Float16);
  }

  // The prediction the loss reads (converted to float32 for it) holds only 16-bit values, and the
  // replica's activations take about half the memory.
  void storedIn16BitsAndHalfTheMemory_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<int>("precision");
    QTest::newRow("LeNet, bfloat16") << "fashion_mnist_lenet" << int(Precision::BFloat16);
    QTest::newRow("ResNet, half") << "fashion_mnist_resnet" << int(Precision::Half);
  }
  void storedIn16BitsAndHalfTheMemory() {
    QFETCH(QString, sample);
    QFETCH(int, precision);
    const Graph graph = graphOf(sampleProject(sample.toStdString()));
    const Batch batch = batchFor(graph, 32);
    auto run = [&](Precision p, int64_t* bytes, int64_t* parameterBytes) {
      cuda::CudaDeviceContext device("cuda:0", {p, false});
      Network net(graph, device);
      net.initializeParameters(3);
      net.forward(batch.x, batch.y, true, RandomKey{1, 0, 0, nullptr});
      net.backward(1.0f / 32);
      net.forward(batch.x, batch.y, false, RandomKey{1, 0, 0, nullptr});
      *bytes = net.tensorBytes();
      *parameterBytes = 0;
      for (const ParameterRef& r : net.parameters()) *parameterBytes += 4 * (r.value->size() + (r.grad ? r.grad->size() : 0));
      const Tensor& prediction = net.prediction();
      return std::vector<float>(prediction.data(), prediction.data() + prediction.size());
    };
    int64_t bytes16 = 0, bytes32 = 0, params = 0;
    const auto p16 = run(static_cast<Precision>(precision), &bytes16, &params);
    const auto p32 = run(Precision::Float, &bytes32, &params);
    const Storage storage = static_cast<Precision>(precision) == Precision::Half ? Storage::Float16 : Storage::BFloat16;
    for (float v : p16) QVERIFY2(representable(v, storage), qPrintable(QString::number(double(v), 'g', 10)));
    int wide = 0;  // float32 predictions are not all 16-bit values: the check can fail
    for (float v : p32) wide += !representable(v, storage);
    QVERIFY(wide > static_cast<int>(p32.size()) / 2);
    const double activations16 = double(bytes16 - params), activations32 = double(bytes32 - params);
    QVERIFY2(activations16 < 0.6 * activations32,
             qPrintable(QString("activations: %1 bytes in 16 bits, %2 in float32").arg(activations16).arg(activations32)));
  }

  // One step's gradients against float32's: different (16-bit storage rounds) but close.
  void gradientsCloseToFloat32_data() {
    QTest::addColumn<QString>("graph");
    QTest::newRow("LeNet") << "fashion_mnist_lenet";
    QTest::newRow("ResNet") << "fashion_mnist_resnet";
    QTest::newRow("fan-out read in float32 and in 16 bits") << "mixed";
  }
  void gradientsCloseToFloat32() {
    QFETCH(QString, graph);
    const Graph g = graphOf(graph == "mixed" ? mixedFanOut() : sampleProject(graph.toStdString()));
    if (graph == "mixed") {  // Tanh has no 16-bit GPU kernel: a converts for it, and t for s
      cuda::CudaDeviceContext device("cuda:0", {Precision::BFloat16, false});
      Network net(g, device);
      QVERIFY(net.storageOf(1) == Storage::BFloat16 && net.storageOf(2) == Storage::Float32 &&
              net.storageOf(3) == Storage::BFloat16 && net.storageOf(4) == Storage::BFloat16);
    }
    const Batch batch = batchFor(g, 24);
    const Step f = stepOn(g, Precision::Float, batch);
    // Measured here (relative L2): bfloat16 2.9% LeNet, 7.3% ResNet, 0.4% the fan-out; half 0.46%,
    // 2.2%, 0.04%. ResNet's is larger and not 8× apart (the formats' mantissas): a maximum that
    // rounding turns into a tie moves MaxPooling's gradient whatever the precision, and
    // BatchNormalization's backward subtracts nearby values. A lost or doubled contribution, or a
    // wrong conversion, is tens of percent.
    for (const auto& [precision, bound] : {std::pair{Precision::BFloat16, 0.15}, std::pair{Precision::Half, 0.05}}) {
      const Step s = stepOn(g, precision, batch);
      const double d = relativeDistance(s.grads, f.grads);
      const QString what = QString("%1: gradients %2 from float32's (relative L2), loss %3 vs %4")
                               .arg(precisionName(precision))
                               .arg(d)
                               .arg(s.loss)
                               .arg(f.loss);
      qInfo("%s", qPrintable(what));
      QVERIFY2(d > 0 && d < bound, qPrintable(what));
      QVERIFY2(std::abs(s.loss - f.loss) <= 2 * bound * std::abs(f.loss) + 1e-6, qPrintable(what));
    }
  }

  // The plan states the activations' storage and memory, and the largest batch that fits a GPU;
  // its estimate is the replica's measured activation memory, after a step and a validation
  // block, to within 10%.
  void planStatesMemoryAndLargestBatch() {
    auto plan = [&](const std::string& precision) {
      Json project = sampleProject("fashion_mnist_lenet");
      project["config"]["precision"] = precision;
      TrainOptions options;
      options.projectPath = saveProject(m_dir, "plan-" + precision, project);
      options.devices = {"cuda:0"};
      return planRun(options);
    };
    const TrainingPlan f = plan("float"), b = plan("bfloat16");
    QCOMPARE(QString::fromStdString(f.activationStorage), QString("float32"));
    QCOMPARE(QString::fromStdString(b.activationStorage), QString("bfloat16"));
    QVERIFY(b.activationBytesPerWorker < 0.6 * f.activationBytesPerWorker);
    QVERIFY(f.deviceMemoryBytes > 0 && b.deviceMemoryBytes == f.deviceMemoryBytes);
    QVERIFY2(b.largestBatchPerDevice > 1.6 * f.largestBatchPerDevice,
             qPrintable(QString("%1 samples in bfloat16, %2 in float32").arg(b.largestBatchPerDevice).arg(f.largestBatchPerDevice)));
    QVERIFY(QString::fromStdString(b.toText()).contains("Largest batch:"));
    const protocol::TrainingPlan back = protocol::TrainingPlan::fromJson(b.toJson());
    QCOMPARE(back.largestBatchPerDevice, b.largestBatchPerDevice);
    QCOMPARE(QString::fromStdString(back.activationStorage), QString("bfloat16"));

    // The estimate against a replica's tensors at the plan's batch.
    const Graph graph = graphOf(sampleProject("fashion_mnist_lenet"));
    const int64_t rows = b.devices.at(0).batch;
    const Batch batch = batchFor(graph, rows);
    cuda::CudaDeviceContext device("cuda:0", {Precision::BFloat16, false});
    Network net(graph, device);
    net.initializeParameters(1);
    net.forward(batch.x, batch.y, true, RandomKey{1, 0, 0, nullptr});
    net.backward(1.0f);
    // Then a validation block (Note [Memory before launch]: it resizes the outputs only).
    const int64_t block = b.memory.at(0).validationBlock;
    QCOMPARE(block, int64_t{256});
    const Batch validation = batchFor(graph, block);
    net.forward(validation.x, validation.y, false, RandomKey{1, 0, 0, nullptr});
    int64_t params = 0;
    for (const ParameterRef& r : net.parameters()) params += 4 * (r.value->size() + (r.grad ? r.grad->size() : 0));
    const double measured = double(net.tensorBytes() - params);
    QVERIFY2(std::abs(measured - double(b.activationBytesPerWorker)) <= 0.1 * measured,
             qPrintable(QString("plan %1 bytes, replica %2").arg(b.activationBytesPerWorker).arg(measured)));
  }

  // Note [Channels last]: the conversions between layouts are exact and the simulated kernels see
  // NCHW, so ResNet and LeNet train the same bits channels last and channels first.
  void channelsLastTrainsTheSameBits_data() {
    QTest::addColumn<QString>("sample");
    QTest::newRow("ResNet") << "fashion_mnist_resnet";
    QTest::newRow("LeNet") << "fashion_mnist_lenet";
  }
  void channelsLastTrainsTheSameBits() {
    QFETCH(QString, sample);
    auto train = [&](bool last) {
      Json project = sampleProject(sample.toStdString());
      project["config"]["precision"] = "bfloat16";
      project["config"]["max_epoch"] = 1;
      project["parallel"]["devices"] = Json::array({"cuda:0", "cuda:1"});
      if (!last) qputenv("NETSMITH_CHANNELS_LAST", "off");
      TrainOptions options;
      options.trainSamples = 512;
      options.validationSamples = 128;
      const TrainedRun run =
          trainInProcess(m_dir, saveProject(m_dir, sample.toStdString() + (last ? "-nhwc" : "-nchw"), project), options);
      qunsetenv("NETSMITH_CHANNELS_LAST");
      return run.result.status == "completed" ? run.result.parametersSha256 : "failed: " + run.result.message;
    };
    const std::string last = train(true), first = train(false);
    QVERIFY2(last.rfind("failed", 0) != 0, last.c_str());
    QCOMPARE(QString::fromStdString(last), QString::fromStdString(first));
  }

  // A whole epoch: LeNet in bfloat16 and half (loss scaling) ends where float32 does.
  void trainsLikeFloat32() {
    auto train = [&](const std::string& precision, int gpus) {
      Json project = sampleProject("fashion_mnist_lenet");
      project["config"]["precision"] = precision;
      project["config"]["max_epoch"] = 1;
      project["parallel"]["devices"] = Json::array();
      for (int d = 0; d < gpus; ++d) project["parallel"]["devices"].push_back("cuda:" + std::to_string(d));
      TrainOptions options;
      options.trainSamples = 2048;
      options.validationSamples = 512;
      const TrainedRun run = trainInProcess(m_dir, saveProject(m_dir, "lenet-" + precision, project), options);
      if (run.result.status != "completed") qWarning("%s", run.result.message.c_str());
      return run.result.status == "completed" ? *run.result.bestValidationError : 1.0;
    };
    // Against float32 on as many GPUs (the learning rate follows the device count).
    const double f1 = train("float", 1), f2 = train("float", 2);
    for (const auto& [precision, gpus] : {std::pair{"bfloat16", 1}, std::pair{"half", 1}, std::pair{"bfloat16", 2}}) {
      const double e = train(precision, gpus);
      const double f = gpus == 1 ? f1 : f2;
      QVERIFY2(std::abs(e - f) <= 0.04, qPrintable(QString("%1 on %2 GPU(s): validation error %3, float32 %4")
                                                      .arg(precision)
                                                      .arg(gpus)
                                                      .arg(e)
                                                      .arg(f)));
    }
  }
};

QTEST_GUILESS_MAIN(TestSimHalfActivations)
#include "tst_sim_half_activations.moc"
