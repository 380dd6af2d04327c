// Note [CUDA graphs of a step] on simulated GPUs: one GPU in fast mode launches its steps from a
// captured graph, and trains the very parameters it trains without graphs (NETSMITH_CUDA_GRAPHS=
// off), through epochs whose validation reallocates memory (a new capture each time); a network
// with Dropout, and two GPUs, never launch a graph.
#include <QtTest>

#include "support/simulated_counters.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

int64_t graphLaunches(int devices) { return simulatedCount(devices, &cuda::sim::Device::graphLaunches); }

struct GraphRun {
  std::string sha;
  int64_t launches = 0;
};

}  // namespace

class TestSimStepGraphs : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  GraphRun train(const std::string& name, Json project, int gpus, bool graphs) {
    project["config"]["max_epoch"] = 2;
    project["config"]["batch_size"] = 16;
    project["config"]["deterministic"] = false;
    project["parallel"]["devices"] = Json::array();
    for (int d = 0; d < gpus; ++d) project["parallel"]["devices"].push_back("cuda:" + std::to_string(d));
    if (graphs) qunsetenv("NETSMITH_CUDA_GRAPHS");
    else qputenv("NETSMITH_CUDA_GRAPHS", "off");
    TrainOptions options;
    options.trainSamples = 16 * 10;
    options.validationSamples = 48;  // a validation block larger than a step's batch: memory changes
    const int64_t before = graphLaunches(gpus);
    const TrainedRun run = trainInProcess(m_dir, saveProject(m_dir, name + (graphs ? "-graphs" : "-eager"), project), options);
    qunsetenv("NETSMITH_CUDA_GRAPHS");
    if (run.result.status != "completed") return {"failed: " + run.result.message, 0};
    return {run.result.parametersSha256, graphLaunches(gpus) - before};
  }

 private slots:
  void initTestCase() {
    QVERIFY2(!qgetenv("NETSMITH_SIMULATED_GPUS").isEmpty(), "run through CTest, which sets NETSMITH_SIMULATED_GPUS");
  }

  void graphsTrainTheEagerParameters_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("precision");
    QTest::newRow("MLP") << "fashion_mnist_mlp" << "float";
    QTest::newRow("LeNet") << "fashion_mnist_lenet" << "float";
    QTest::newRow("ResNet (BatchNormalization)") << "fashion_mnist_resnet" << "float";
    // Note [16-bit activations], Note [Channels last]: the conversions are captured too.
    QTest::newRow("ResNet in bfloat16") << "fashion_mnist_resnet" << "bfloat16";
  }
  void graphsTrainTheEagerParameters() {
    QFETCH(QString, sample);
    QFETCH(QString, precision);
    Json project = sampleProject(sample.toStdString());
    project["config"]["precision"] = precision.toStdString();
    const std::string name = sample.toStdString() + "-" + precision.toStdString();
    const GraphRun eager = train(name, project, 1, false);
    const GraphRun graphs = train(name, project, 1, true);
    QCOMPARE(QString::fromStdString(graphs.sha), QString::fromStdString(eager.sha));
    QCOMPARE(eager.launches, int64_t{0});
    // 10 steps an epoch: the first two of each epoch eager (after a change of memory), then graphs.
    QVERIFY2(graphs.launches >= 10, qPrintable(QString("%1 graph launches in 20 steps").arg(graphs.launches)));
  }

  void noGraphWithDropoutOrTwoGpus() {
    Json project = sampleProject("fashion_mnist_mlp");
    insertAfter(project, firstNodeOfType(project, "ReLU"), "drop", "Dropout", {{"p", 0.3}});
    const GraphRun dropout = train("mlp-dropout", project, 1, true);
    QVERIFY2(dropout.sha.rfind("failed", 0) != 0, dropout.sha.c_str());
    QCOMPARE(dropout.launches, int64_t{0});
    const GraphRun two = train("mlp-two", sampleProject("fashion_mnist_mlp"), 2, true);
    QVERIFY2(two.sha.rfind("failed", 0) != 0, two.sha.c_str());
    QCOMPARE(two.launches, int64_t{0});
  }
};

QTEST_GUILESS_MAIN(TestSimStepGraphs)
#include "tst_sim_step_graphs.moc"
