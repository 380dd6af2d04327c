// netsmith-cli import NET.nntxt / MODEL.nnp (Note [NNabla import]): hand-written Neural Network
// Console files (tests/data/nnabla/) import with the trainable-parameter count and output shape
// computed by hand from the file, with their settings mapped (Note [NNabla settings]); an .nnp's
// parameters become NAME.nsparams and `infer` gives what the network computes by hand; an imported
// .nnp trains for one epoch; an unknown function or HDF5-only parameters are errors that name the
// file and write nothing.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/data/npy.h"
#include "engine/project/project_io.h"
#include "engine/model/checkpoint.h"
#include "support/cli_runner.h"
#include "support/named_dataset.h"
#include "support/nnp_writer.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

QString fixture(const QString& name) { return QStringLiteral(NETSMITH_TEST_DATA) + "/nnabla/" + name; }

std::string fixtureText(const QString& name) { return readBytes(fixture(name).toStdString()); }

// A two-layer perceptron in NNC's format: Input (4) → Affine (3) → ReLU → Affine_2 (2) →
// SoftmaxCrossEntropy.
const char* kMlp = R"(network {
  name: "Main"
  batch_size: 2
  variable {
    name: "Input"
    type: "Buffer"
    shape: { dim:-1 dim: 4 }
  }
  variable {
    name: "Affine/affine/W"
    type: "Parameter"
    shape: { dim: 4 dim: 3 }
  }
  variable {
    name: "Affine/affine/b"
    type: "Parameter"
    shape: { dim: 3 }
  }
  variable {
    name: "Affine_2/affine/W"
    type: "Parameter"
    shape: { dim: 3 dim: 2 }
  }
  variable {
    name: "Affine_2/affine/b"
    type: "Parameter"
    shape: { dim: 2 }
  }
  variable {
    name: "SoftmaxCrossEntropy_T"
    type: "Buffer"
    shape: { dim:-1 dim: 1 }
  }
  variable {
    name: "Affine"
    type: "Buffer"
    shape: { dim:-1 dim: 3 }
  }
  variable {
    name: "ReLU"
    type: "Buffer"
    shape: { dim:-1 dim: 3 }
  }
  variable {
    name: "Affine_2"
    type: "Buffer"
    shape: { dim:-1 dim: 2 }
  }
  variable {
    name: "SoftmaxCrossEntropy"
    type: "Buffer"
    shape: { dim:-1 dim: 1 }
  }
  function {
    name: "Affine"
    type: "Affine"
    input: "Input"
    input: "Affine/affine/W"
    input: "Affine/affine/b"
    output: "Affine"
    affine_param {
      base_axis: 1
    }
  }
  function {
    name: "ReLU"
    type: "ReLU"
    input: "Affine"
    output: "ReLU"
  }
  function {
    name: "Affine_2"
    type: "Affine"
    input: "ReLU"
    input: "Affine_2/affine/W"
    input: "Affine_2/affine/b"
    output: "Affine_2"
    affine_param {
      base_axis: 1
    }
  }
  function {
    name: "SoftmaxCrossEntropy"
    type: "SoftmaxCrossEntropy"
    input: "Affine_2"
    input: "SoftmaxCrossEntropy_T"
    output: "SoftmaxCrossEntropy"
  }
}
)";

// Values that differ from every initialiser: 0.1 * ((7 * i + seed) % 11) - 0.5.
std::vector<float> pattern(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.1f * static_cast<float>((7 * i + seed) % 11) - 0.5f;
  return v;
}

const Tensor* tensorNamed(const CheckpointData& d, const std::string& name) {
  for (const auto& [n, t] : d.tensors)
    if (n == name) return &t;
  return nullptr;
}

}  // namespace

class NnablaImportTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString path(const QString& name) const { return m_dir.filePath(name); }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // Trainable parameters counted by hand from the files' parameter shapes (BatchNormalization's
  // mean and var not counted), and the output layer's shape per sample:
  //   lenet_repeat: Convolution 4*1*3*3 + 4 = 40; BatchNormalization gamma, beta 2*4 = 8; the
  //     repeated Convolution_2 twice (4*4*3*3 + 4) = 296; Affine 64*3 + 3 = 195; 539 in all,
  //     output (3); 10 functions once the repeat is expanded (RepeatStart/End gone).
  //   zoo_runtime: Convolution (group 3) 6*1*3*3 + 6 = 60; Deconvolution (group 2) 6*2*2*2 + 4 =
  //     52; PReLU 8; Affine 8*5 + 5 = 45; Affine_2 5*4 + 4 = 24; 189 in all, output (4) (the final
  //     Softmax becomes the head of the appended SoftmaxCrossEntropy).
  void importsWithTheSourceCountsAndShapes_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<qlonglong>("parameters");
    QTest::addColumn<QString>("outputShape");
    QTest::addColumn<QString>("loss");
    QTest::addColumn<qlonglong>("functions");
    QTest::newRow("lenet_repeat") << "lenet_repeat.nntxt" << 539LL << "[3]" << "SoftmaxCrossEntropy" << 10LL;
    QTest::newRow("zoo_runtime") << "zoo_runtime.nntxt" << 189LL << "[4]" << "SoftmaxCrossEntropy" << 17LL;
  }
  void importsWithTheSourceCountsAndShapes() {
    QFETCH(QString, file);
    QFETCH(qlonglong, parameters);
    QFETCH(QString, outputShape);
    QFETCH(QString, loss);
    QFETCH(qlonglong, functions);
    const QString out = path("counts/" + file.section('.', 0, 0) + ".nsproj");
    const CliRun run = runCli({"import", fixture(file), "--output", out, "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const Json s = Json::parse(run.stdoutText.toStdString());
    QCOMPARE(s["trainable_parameters"].get<qlonglong>(), parameters);
    QCOMPARE(s["source_trainable_parameters"].get<qlonglong>(), parameters);
    QCOMPARE(QString::fromStdString(s["output_shape"].dump()), outputShape);
    QCOMPARE(QString::fromStdString(s["loss"].get<std::string>()), loss);
    QCOMPARE(s["functions"].get<qlonglong>(), functions);
    // A network alone: no parameters file, and training starts from the initialisers.
    QVERIFY(s["parameters"].get<std::string>().empty());
    QVERIFY(!QFileInfo::exists(path("counts/" + file.section('.', 0, 0) + ".nsparams")));
    const Project p = loadProject(out.toStdString());
    QVERIFY(p.config.initialParameters.empty());
  }

  // Note [NNabla settings]: lenet_repeat's training_config, datasets and Momentum solver.
  void settingsMapAndTheRestIsListed() {
    const QString out = path("settings/lenet.nsproj");
    const CliRun run = runCli({"import", fixture("lenet_repeat.nntxt"), "--output", out, "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const Project p = loadProject(out.toStdString());
    QCOMPARE(p.config.maxEpoch, int64_t{3});
    QCOMPARE(p.config.batchSize, int64_t{16});
    QCOMPARE(p.config.monitorInterval, int64_t{1});
    QCOMPARE(QString::fromStdString(p.dataset.training.csv), fixture("training.csv"));
    QCOMPARE(QString::fromStdString(p.dataset.validation.csv), fixture("validation.csv"));
    QVERIFY(p.dataset.shuffle);
    QCOMPARE(p.dataset.scale, 1.0 / 255.0);
    QCOMPARE(QString::fromStdString(p.optimizer.solver), QString("Momentum"));
    QCOMPARE(p.optimizer.hyper["lr"].get<double>(), 0.05);
    QCOMPARE(p.optimizer.hyper["momentum"].get<double>(), 0.8);
    QCOMPARE(p.optimizer.weightDecay, 0.0005);
    QCOMPARE(p.optimizer.lrMultiplier, 0.5);
    QCOMPARE(p.optimizer.lrUpdateInterval, int64_t{12});
    const Json s = Json::parse(run.stdoutText.toStdString());
    const std::string listed = s["not_mapped"].dump();
    for (const char* item : {"iter_per_epoch 6", "network 'MainValidation'", "network 'MainRuntime'", "cache_dir", "monitor 'valid_error'",
                             "backend \\\"cpu:float\\\""})
      QVERIFY2(listed.find(item) != std::string::npos, (std::string(item) + " not in " + listed).c_str());
    // Note [NNabla learning-rate multipliers]: the optimizer's parameter_variable lines give
    // Convolution 0 on W and b, BatchNormalization 0.5 on beta and gamma (0 on its statistics,
    // which are not trained, says nothing), the repeat's "Convolution_2{RepeatStart}/conv/W" and
    // b 2 (both copies), Affine W 1 and b 3 (one lr_mult per layer: listed, the layer keeps 1).
    const auto lrMultOf = [&p](const std::string& id) {
      for (const NodeSpec& n : p.network.nodes)
        if (n.id == id) return n.lrMult;
      return -1.0;
    };
    QCOMPARE(lrMultOf("Convolution"), 0.0);
    QCOMPARE(lrMultOf("BatchNormalization"), 0.5);
    QCOMPARE(lrMultOf("Convolution_2_RepeatStart_0"), 2.0);
    QCOMPARE(lrMultOf("Convolution_2_RepeatStart_1"), 2.0);
    QCOMPARE(lrMultOf("Affine"), 1.0);
    for (const NodeSpec& n : p.network.nodes) QVERIFY2(!n.frozen, n.id.c_str());
    QVERIFY2(listed.find("learning_rate_multiplier of layer 'Affine': 'Affine/affine/W' 1, 'Affine/affine/b' 3") != std::string::npos,
             listed.c_str());
    QVERIFY2(listed.find("learning_rate_multiplier of layer 'Convolution'") == std::string::npos, listed.c_str());
    QVERIFY2(listed.find("BatchNormalization/bn/mean") == std::string::npos, listed.c_str());
    // --network picks the executor's network: it has no loss, so one is appended.
    const CliRun runtime = runCli({"import", fixture("lenet_repeat.nntxt"), "--output", path("settings/runtime.nsproj"),
                                   "--network", "MainRuntime", "--loss", "SoftmaxCrossEntropy", "--json"});
    QVERIFY2(runtime.exitCode == 0, runtime.stderrText.constData());
    const Json r = Json::parse(runtime.stdoutText.toStdString());
    QCOMPARE(QString::fromStdString(r["network"].get<std::string>()), QString("MainRuntime"));
    QCOMPARE(r["trainable_parameters"].get<int64_t>(), 539);
  }

  // An .nnp's parameters become NAME.nsparams, and infer gives softmax(W2' relu(W1' x + b1) + b2)
  // computed here in double.
  void nnpInfersAsComputedByHand() {
    const std::vector<float> w1 = pattern(12, 1), b1 = pattern(3, 2), w2 = pattern(6, 3), b2 = pattern(2, 4);
    const QString nnp = path("mlp.nnp");
    writeBytes(nnp.toStdString(), nnpArchive(kMlp, {{"Affine/affine/W", {4, 3}, w1},
                                                    {"Affine/affine/b", {3}, b1},
                                                    {"Affine_2/affine/W", {3, 2}, w2},
                                                    {"Affine_2/affine/b", {2}, b2}}));
    const QString out = path("mlp/mlp.nsproj");
    const CliRun run = runCli({"import", nnp, "--output", out, "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const Json s = Json::parse(run.stdoutText.toStdString());
    QCOMPARE(s["trainable_parameters"].get<int64_t>(), 4 * 3 + 3 + 3 * 2 + 2);
    QCOMPARE(s["parameter_values"].get<int64_t>(), 23);
    QCOMPARE(QString::fromStdString(s["nnp_version"].get<std::string>()), QString("0.1"));
    QCOMPARE(QString::fromStdString(loadProject(out.toStdString()).config.initialParameters), path("mlp/mlp.nsparams"));

    const std::vector<float> x{0.5f, -1.0f, 2.0f, 0.25f, -0.3f, 0.8f, 0.1f, -2.0f, 1.5f, 1.5f, -0.5f, 0.0f};
    const std::vector<int64_t> shape{3, 4};
    writeNpy(path("x.npy").toStdString(), shape, x);
    const CliRun infer = runCli({"infer", out, "--input", path("x.npy"), "--output", path("y.npy")});
    QVERIFY2(infer.exitCode == 0, infer.stderrText.constData());
    const NpyArray y = readNpy(path("y.npy").toStdString());
    QCOMPARE(y.shape, (std::vector<int64_t>{3, 2}));
    double worst = 0;
    for (int n = 0; n < 3; ++n) {
      double h[3], z[2];
      for (int j = 0; j < 3; ++j) {
        h[j] = b1[j];
        for (int i = 0; i < 4; ++i) h[j] += double(x[4 * n + i]) * w1[3 * i + j];
        h[j] = std::max(h[j], 0.0);
      }
      for (int k = 0; k < 2; ++k) {
        z[k] = b2[k];
        for (int j = 0; j < 3; ++j) z[k] += h[j] * w2[2 * j + k];
      }
      const double m = std::max(z[0], z[1]), e0 = std::exp(z[0] - m), e1 = std::exp(z[1] - m);
      worst = std::max({worst, std::fabs(y.values[2 * n] - e0 / (e0 + e1)), std::fabs(y.values[2 * n + 1] - e1 / (e0 + e1))});
    }
    qInfo("mlp.nnp: max abs difference from the hand computation %.3g", worst);
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
  }

  // lenet_repeat as an .nnp with parameters named as NNC names the repeat's copies
  // ("Convolution_2_0/conv/W", "Convolution_2_1/conv/W"), beside a small image dataset (the
  // file's training.csv and validation.csv): the copies get their own values, and the project
  // trains for one epoch from them.
  void nnpWithRepeatsTrainsOneEpoch() {
    const NamedDataset data = writeNamedDataset(path("images"), 16);
    std::vector<NnpParameter> params{{"Convolution/conv/W", {4, 1, 3, 3}, pattern(36, 1)},
                                     {"Convolution/conv/b", {4}, pattern(4, 2)},
                                     {"BatchNormalization/bn/beta", {1, 4, 1, 1}, pattern(4, 3)},
                                     {"BatchNormalization/bn/gamma", {1, 4, 1, 1}, {1.0f, 0.9f, 1.1f, 1.2f}},
                                     {"BatchNormalization/bn/mean", {1, 4, 1, 1}, pattern(4, 5)},
                                     {"BatchNormalization/bn/var", {1, 4, 1, 1}, {1.0f, 2.0f, 0.5f, 1.5f}},
                                     {"Convolution_2_0/conv/W", {4, 4, 3, 3}, pattern(144, 6)},
                                     {"Convolution_2_0/conv/b", {4}, pattern(4, 7)},
                                     {"Convolution_2_1/conv/W", {4, 4, 3, 3}, pattern(144, 8)},
                                     {"Convolution_2_1/conv/b", {4}, pattern(4, 9)},
                                     {"Affine/affine/W", {64, 3}, pattern(192, 10)},
                                     {"Affine/affine/b", {3}, pattern(3, 0)}};
    const QString nnp = data.folder + "/lenet.nnp";
    writeBytes(nnp.toStdString(), nnpArchive(fixtureText("lenet_repeat.nntxt"), params));
    const QString out = path("lenet/lenet.nsproj");
    const CliRun run = runCli({"import", nnp, "--output", out, "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    QCOMPARE(Json::parse(run.stdoutText.toStdString())["parameter_values"].get<int64_t>(), 36 + 4 + 16 + 144 * 2 + 8 + 192 + 3);
    const Project p = loadProject(out.toStdString());
    QCOMPARE(QString::fromStdString(p.dataset.training.csv), data.training);
    const CheckpointData imported = readCheckpoint(path("lenet/lenet.nsparams").toStdString());
    const Tensor* second = tensorNamed(imported, "Convolution_2_RepeatStart_1/W");
    const Tensor* var = tensorNamed(imported, "BatchNormalization/var");
    QVERIFY(second && var);
    QCOMPARE(second->shape(), (Shape{4, 4, 3, 3}));
    QCOMPARE((*second)[5], pattern(144, 8)[5]);
    QCOMPARE((*var)[1], 2.0f);

    const QString runDir = path("lenet-run");
    const CliRun train = runCli({"train", out, "--max-epoch", "1", "--run-dir", runDir, "--quiet"});
    QVERIFY2(train.exitCode == 0, train.stderrText.constData());
    const CheckpointData trained = readCheckpoint((runDir + "/parameters.nsparams").toStdString());
    const Tensor* after = tensorNamed(trained, "Convolution_2_RepeatStart_1/W");
    QVERIFY(after);
    double moved = 0;
    for (int64_t i = 0; i < after->size(); ++i) moved = std::max(moved, std::fabs(double((*after)[i]) - double((*second)[i])));
    QVERIFY2(moved > 0 && moved < 1, qPrintable(QString("moved by %1").arg(moved)));
  }

  // A function with no Netsmith layer names the file, line, column, function and type; nothing
  // is written. A .nnp whose parameters are HDF5 only says so.
  void refusalsWriteNothing() {
    std::string text = fixtureText("lenet_repeat.nntxt");
    const size_t at = text.find("type: \"ReLU\"");
    text.replace(at, 12, "type: \"RandomFlip\"");
    const QString file = path("refused.nntxt");
    writeBytes(file.toStdString(), text);
    const QString out = path("refused/net.nsproj");
    const CliRun run = runCli({"import", file, "--output", out});
    QCOMPARE(run.exitCode, 1);
    const QString message = QString::fromUtf8(run.stderrText);
    QVERIFY2(message.contains(file + ":") && message.contains("function 'ReLU' (type RandomFlip): no Netsmith layer computes RandomFlip"),
             qPrintable(message));
    QVERIFY(!QFileInfo::exists(path("refused")) || QDir(path("refused")).isEmpty());

    const QString h5 = path("h5.nnp");
    writeBytes(h5.toStdString(), zipArchive({{"nnp_version.txt", "0.1\n", false}, {"network.nntxt", kMlp, true}, {"parameter.h5", "\x89HDF\r\n", false}}));
    const CliRun hdf = runCli({"import", h5, "--output", out});
    QCOMPARE(hdf.exitCode, 1);
    QVERIFY2(hdf.stderrText.contains("parameter.h5 (HDF5)"), hdf.stderrText.constData());
    QVERIFY(!QFileInfo::exists(out));
  }
};

QTEST_GUILESS_MAIN(NnablaImportTest)
#include "tst_nnabla_import.moc"
