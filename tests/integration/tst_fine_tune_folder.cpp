// Issue 18's acceptance check for transfer learning: an imported model fine-tunes on a dataset
// made from a folder, with its early layers frozen. The test writes a folder of PNG and JPEG
// images in three class folders (stripes across, down, and diagonal, at random phases with
// noise), makes a dataset of it with `netsmith-cli dataset create`, trains a small convolutional
// model with a 10-way head on it, exports it to ONNX and imports it back (the imported model and
// its .nsparams), freezes every Convolution and BatchNormalization, sees `train --dry-run` say
// that the dataset has 3 classes but the network outputs 10, sets the head with `project
// set-classes` (the count read from the dataset), and fine-tunes: the initial_parameters event
// reports the head re-initialised with both shapes and the rest loaded; the frozen blobs are bit
// for bit the imported ones; the head has 3 outputs; the training loss falls; and the validation
// accuracy beats chance (1/3) by far.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>

#include "engine/model/checkpoint.h"
#include "support/cli_runner.h"
#include "unit/image_test_files.h"

using namespace netsmith;
using namespace netsmith::test;
using namespace netsmith::testing;

namespace {

constexpr int kSide = 16;
constexpr int kPerClass = 40;

// Class 0 (diagonal), 1 (horizontal), 2 (vertical): stripes two pixels wide at a random phase,
// with noise; dataset create sorts the class folders by name, so these are their labels.
int pixel(int cls, int phase, uint32_t& noise, int x, int y) {
  const int along = cls == 0 ? x + y : cls == 1 ? y : x;
  noise = noise * 1664525u + 1013904223u;
  const int jitter = static_cast<int>((noise >> 24) % 61) - 30;
  return std::clamp(((along + phase) % 4 < 2 ? 190 : 60) + jitter, 0, 255);
}

Json node(const std::string& id, const std::string& type, Json params = Json::object()) {
  return {{"id", id}, {"type", type}, {"params", std::move(params)}};
}

std::map<std::string, Tensor> tensorsOf(const std::string& file) {
  std::map<std::string, Tensor> out;
  for (auto& [name, t] : readCheckpoint(file).tensors) out.emplace(name, std::move(t));
  return out;
}

bool sameBits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size()) * sizeof(float)) == 0;
}

}  // namespace

class FineTuneFolderTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString path(const QString& name) const { return m_dir.filePath(name); }

 private slots:
  void importedModelFineTunesWithFrozenEarlyLayers() {
    QVERIFY(m_dir.isValid());
    // 1. The image folder and its dataset.
    const char* names[] = {"diagonal", "horizontal", "vertical"};
    uint32_t noise = 7;
    for (int cls = 0; cls < 3; ++cls) {
      const QString folder = path(QString("images/%1").arg(names[cls]));
      QVERIFY(QDir().mkpath(folder));
      for (int i = 0; i < kPerClass; ++i) {
        const int phase = (i * 7 + cls) % 4;
        const auto value = [&](int x, int y, int) { return pixel(cls, phase, noise, x, y); };
        if (i % 4 == 3) {
          JpegSpec spec;
          spec.width = spec.height = kSide;
          spec.components = 1;
          QVERIFY(writeJpegFile(folder + QString("/%1.jpg").arg(i), spec, value));
        } else {
          PngSpec spec;
          spec.width = spec.height = kSide;
          spec.colorType = PNG_COLOR_TYPE_GRAY;
          QVERIFY(writePngFile(folder + QString("/%1.png").arg(i), spec, value));
        }
      }
    }
    const CliRun created = runCli({"dataset", "create", path("images"), "--output", path("ds"), "--size", "16x16",
                                   "--channels", "1", "--validation", "25"});
    QVERIFY2(created.exitCode == 0, created.stderrText.constData());
    const Json dataset = {{"training", {{"format", "csv"}, {"csv", path("ds/training.csv").toStdString()}}},
                          {"validation", {{"format", "csv"}, {"csv", path("ds/validation.csv").toStdString()}}},
                          {"scale", 1.0 / 255},
                          {"shuffle", true}};

    // 2. A model with a 10-way head, trained briefly, exported to ONNX and imported back.
    Json pretrain = {
        {"format", "netsmith-project"},
        {"version", 1},
        {"name", "stripes"},
        {"network",
         {{"nodes", {node("x", "Input", {{"shape", {1, kSide, kSide}}}),
                     node("conv1", "Convolution", {{"outmaps", 8}, {"kernel", {3, 3}}, {"pad", {1, 1}}}),
                     node("bn1", "BatchNormalization"), node("relu1", "ReLU"),
                     node("pool1", "MaxPooling", {{"kernel", {2, 2}}}),
                     node("conv2", "Convolution", {{"outmaps", 8}, {"kernel", {3, 3}}, {"pad", {1, 1}}}),
                     node("relu2", "ReLU"), node("fc", "Affine", {{"n_outmaps", {10}}}),
                     node("loss", "SoftmaxCrossEntropy")}},
          {"links", Json::array()}}},
        {"dataset", dataset},
        {"config", {{"max_epoch", 4}, {"batch_size", 16}, {"seed", 5}}},
        {"optimizer", {{"solver", "Adam"}, {"alpha", 0.01}}},
        {"parallel", {{"devices", {"cpu:0"}}}}};
    const Json& nodes = pretrain["network"]["nodes"];
    for (size_t i = 0; i + 1 < nodes.size(); ++i)
      pretrain["network"]["links"].push_back({{"from", nodes[i]["id"]}, {"to", nodes[i + 1]["id"]}});
    std::ofstream(path("pretrain.nsproj").toStdString()) << pretrain.dump(1);
    const CliRun trained = runCli({"train", path("pretrain.nsproj"), "--run-dir", path("pretrain-run"), "--quiet"});
    QVERIFY2(trained.exitCode == 0, trained.stderrText.constData());
    const CliRun exported = runCli({"export", path("pretrain-run"), "--onnx", path("stripes.onnx")});
    QVERIFY2(exported.exitCode == 0, exported.stderrText.constData());
    const QString project = path("tune/stripes.nsproj");
    const CliRun imported = runCli({"import", path("stripes.onnx"), "--output", project, "--loss", "SoftmaxCrossEntropy"});
    QVERIFY2(imported.exitCode == 0, imported.stderrText.constData());

    // 3. The imported project on the folder's dataset, its early layers frozen.
    Json tune = Json::parse(std::ifstream(project.toStdString()));
    tune["dataset"] = dataset;
    tune["config"]["max_epoch"] = 6;
    tune["config"]["batch_size"] = 16;
    tune["config"]["seed"] = 11;
    tune["optimizer"] = {{"solver", "Adam"}, {"alpha", 0.02}};
    std::vector<std::string> frozen;
    std::string head;
    for (Json& n : tune["network"]["nodes"]) {
      if (n["type"] == "Convolution" || n["type"] == "BatchNormalization") {
        n["frozen"] = true;
        frozen.push_back(n["id"]);
      }
      if (n["type"] == "Affine") head = n["id"];
    }
    QCOMPARE(frozen.size(), size_t{3});
    QVERIFY(!head.empty());
    std::ofstream(project.toStdString()) << tune.dump(1);
    // Written relative to the project's folder.
    const std::string initialFile = path("tune").toStdString() + "/" + tune["config"]["initial_parameters"].get<std::string>();

    // 4. Training says that the classes differ, and how to set the head.
    const CliRun plan = runCli({"train", project, "--dry-run", "--json"});
    QVERIFY2(plan.exitCode == 0, plan.stderrText.constData());
    const std::string warnings = plan.last("plan")["warnings"].dump();
    QVERIFY2(warnings.find("The dataset has 3 classes but the network outputs 10") != std::string::npos &&
                 warnings.find("netsmith-cli project set-classes") != std::string::npos,
             warnings.c_str());
    const CliRun set = runCli({"project", "set-classes", project});
    QVERIFY2(set.exitCode == 0, set.stderrText.constData());
    QVERIFY2(set.stdoutText.contains("to 3 outputs (was 10)"), set.stdoutText.constData());

    // 5. Fine-tuning.
    const QString run = path("tune-run");
    const CliRun tuned = runCli({"train", project, "--run-dir", run, "--events", "-"});
    QVERIFY2(tuned.exitCode == 0, tuned.stderrText.constData());
    const Json report = tuned.last("initial_parameters");
    for (const Json& layer : report["layers"]) {
      if (layer["id"] == head) {
        QCOMPARE(layer["status"], Json("reinitialized"));
        QCOMPARE(layer["reinitialized"][0]["shape"].back(), Json(3));
        QCOMPARE(layer["reinitialized"][0]["file_shape"].back(), Json(10));
      } else {
        QVERIFY2(layer["status"] == "loaded", layer.dump().c_str());
      }
    }
    const auto before = tensorsOf(initialFile);
    const auto after = tensorsOf(run.toStdString() + "/parameters.nsparams");
    int frozenBlobs = 0;
    for (const std::string& id : frozen)
      for (const auto& [name, t] : after)
        if (name.rfind(id + "/", 0) == 0) {
          QVERIFY2(sameBits(t, before.at(name)), name.c_str());
          ++frozenBlobs;
        }
    QCOMPARE(frozenBlobs, 8);  // two convolutions' W and b, and the BatchNormalization's four
    QCOMPARE(after.at(head + "/W").shape().back(), int64_t{3});
    QCOMPARE(before.at(head + "/W").shape().back(), int64_t{10});

    const auto epochs = tuned.ofKind("epoch");
    QCOMPARE(epochs.size(), size_t{6});
    const double firstLoss = epochs.front()["train_loss"], lastLoss = epochs.back()["train_loss"];
    const double accuracy = 1.0 - epochs.back()["validation_error"].get<double>();
    qInfo("fine-tuning: train loss %.4f -> %.4f, validation accuracy %.3f (chance 0.333), parameters %s", firstLoss,
          lastLoss, accuracy, tuned.last("finished").value("parameters_sha256", "").c_str());
    QVERIFY2(lastLoss < firstLoss, "the training loss fell");
    QVERIFY2(accuracy > 0.6, qPrintable(QString("validation accuracy %1").arg(accuracy)));
  }
};

QTEST_GUILESS_MAIN(FineTuneFolderTest)
#include "tst_fine_tune_folder.moc"
