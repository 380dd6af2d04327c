// torchvision's models (random weights; pretrained ones cannot be downloaded here) exported by
// Debian's PyTorch (python3-torch, python3-torchvision; tests/support/torchvision_export.py) at
// opsets 11, 13 and 17, recognised as classifiers (the import without --loss chooses
// SoftmaxCrossEntropy), imported with `netsmith-cli import --loss SquaredError` (the raw scores),
// and run with `infer PROJECT --input X.npy`: the outputs equal PyTorch's and onnxruntime's within
// 1e-3 of the output's scale (its largest magnitude). ResNet-18, MobileNetV2, SqueezeNet 1.1, DenseNet-121 and ShuffleNetV2 x1.0
// (its channel shuffle becomes ChannelShuffle, its chunks Slices) at 2x3x64x64; VGG-11 with
// BatchNormalization at 1x3x224x224, the only size at which PyTorch 1.13 exports its
// AdaptiveAvgPool2d((7, 7)) (133 M parameters; its 1 GB of files are removed after its row).
// onnxruntime comes from the test command's virtual environment (Note [Test Python]); without it
// each row says so and compares with PyTorch only, and onnxruntimeComparisons is skipped naming
// the rows not compared. Skips, naming the module, without torch or torchvision.
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "engine/data/npy.h"
#include "support/cli_runner.h"
#include "support/test_python.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

struct PyRun {
  int exitCode = -1;
  QString output;
};

PyRun exportModel(const QString& python, const QString& model, int size, int opset, int batch, const QString& dir) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(python, {sourcePath("tests/support/torchvision_export.py"), model, QString::number(size), dir,
                   QString::number(opset), QString::number(batch)});
  p.waitForFinished(900000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll()).trimmed()};
}

// max |a - b| / max |b|.
double relativeDifference(const std::vector<float>& a, const std::vector<float>& b, double* absolute) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::fabs(double(b[i])));
  }
  *absolute = worst;
  return worst / std::max(scale, 1e-30);
}

}  // namespace

class TorchvisionImportTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_python;
  QStringList m_withoutOrt;  // rows compared with PyTorch only
  QString m_ortMessage;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_python = testPython();
    qInfo("Python for torch and onnxruntime: %s", qPrintable(m_python));
  }

  void models_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("opset");
    QTest::addColumn<int>("batch");
    for (const char* m : {"resnet18", "mobilenet_v2", "squeezenet1_1", "densenet121", "shufflenet_v2_x1_0"})
      QTest::addRow("%s", m) << m << 64 << 13 << 2;
    // Opset differences (Squeeze/Unsqueeze and Split axes as attributes before 13, Softmax's axis,
    // Clip's bounds as inputs from 11): PyTorch 1.13's lowest supported here and its highest.
    for (int opset : {11, 17})
      for (const char* m : {"resnet18", "mobilenet_v2", "shufflenet_v2_x1_0"})
        QTest::addRow("%s_opset%d", m, opset) << m << 64 << opset << 2;
    QTest::newRow("vgg11_bn") << "vgg11_bn" << 224 << 13 << 1;
  }
  void models() {
    QFETCH(QString, model);
    QFETCH(int, size);
    QFETCH(int, opset);
    QFETCH(int, batch);
    QElapsedTimer timer;
    timer.start();
    const PyRun exported = exportModel(m_python, model, size, opset, batch, m_dir.path());
    if (exported.exitCode == 77) QSKIP(qPrintable(exported.output));
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.output));
    const QString tag = QString("%1-opset%2").arg(model).arg(opset);
    const QString onnx = m_dir.filePath(tag + ".onnx"), project = m_dir.filePath("imported/" + tag + ".nsproj");
    // Each is a classifier ending in 1000 raw scores (a Gemm; SqueezeNet's 1x1 Conv, ReLU and global
    // pooling): without --loss the import chooses SoftmaxCrossEntropy (Note [Classifier output
    // recognised]). The outputs are compared as the model gives them, so the project ends in
    // SquaredError, whose head is the identity.
    const CliRun recognised = runCli({"import", onnx, "--dry-run", "--json"});
    QVERIFY2(recognised.exitCode == 0, recognised.stderrText.constData());
    const std::string loss = Json::parse(recognised.stdoutText.toStdString())["loss"].get<std::string>();
    QCOMPARE(QString::fromStdString(loss), QString("SoftmaxCrossEntropy"));
    const CliRun import = runCli({"import", onnx, "--output", project, "--loss", "SquaredError"});
    QVERIFY2(import.exitCode == 0, import.stderrText.constData());
    QVERIFY2(import.stdoutText.contains(QString("(opset %1,").arg(opset).toUtf8()), import.stdoutText.constData());
    const QString ours = m_dir.filePath(tag + "-netsmith.npy");
    const CliRun infer = runCli({"infer", project, "--input", m_dir.filePath(tag + "-x.npy"), "--output", ours});
    QVERIFY2(infer.exitCode == 0, infer.stderrText.constData());
    const NpyArray y = readNpy(ours.toStdString());
    QCOMPARE(y.values.size(), size_t(batch) * 1000);
    for (const char* peer : {"torch", "ort"}) {
      const QString file = m_dir.filePath(tag + "-" + peer + ".npy");
      if (!QFileInfo::exists(file)) {
        QVERIFY2(QString(peer) == "ort", "PyTorch's outputs are missing");
        m_ortMessage = exported.output.section('\n', -1);
        m_withoutOrt << tag;
        qWarning("%s: NOT compared with onnxruntime (%s): compared with PyTorch only", qPrintable(tag),
                 qPrintable(m_ortMessage));
        continue;
      }
      const NpyArray ref = readNpy(file.toStdString());
      QCOMPARE(y.values.size(), ref.values.size());
      double absolute = 0;
      const double relative = relativeDifference(y.values, ref.values, &absolute);
      qInfo("%s vs %s: max abs difference %.3g (%.3g of the output's scale)", qPrintable(tag), peer, absolute, relative);
      QVERIFY2(relative <= 1e-3, qPrintable(QString("%1 vs %2: %3 of the scale").arg(tag, peer).arg(relative)));
    }
    qInfo("%s: %s; export, import, infer and compare in %.1f s", qPrintable(tag),
          qPrintable(QString(exported.output).replace('\n', "; ")), timer.elapsed() / 1000.0);
    // VGG's files are 1 GB: each row's model and parameters go once compared.
    QFile::remove(onnx);
    QFile::remove(m_dir.filePath("imported/" + tag + ".nsparams"));
  }

  // Says, as a skip, which rows were compared with PyTorch only because onnxruntime was missing.
  void onnxruntimeComparisons() {
    if (!m_withoutOrt.isEmpty())
      QSKIP(qPrintable(QString("onnxruntime is missing (%1): %2 row(s) NOT compared with onnxruntime, only with "
                               "PyTorch: %3. installer/test.sh installs it into build/test-venv (Note [Test Python])")
                           .arg(m_ortMessage)
                           .arg(m_withoutOrt.size())
                           .arg(m_withoutOrt.join(", "))));
  }
};

QTEST_GUILESS_MAIN(TorchvisionImportTest)
#include "tst_torchvision_import.moc"
