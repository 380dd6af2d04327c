// torchvision's models (random weights; pretrained ones cannot be downloaded here) exported by
// Debian's PyTorch (python3-torch, python3-torchvision; tests/support/torchvision_export.py) at
// 2x3x64x64, imported with `netsmith-cli import`, and run with `infer PROJECT --input X.npy`: the
// outputs equal PyTorch's (and onnxruntime's, when importable) within 1e-3 of the output's scale
// (its largest magnitude). A model that needs an operator Netsmith has no layer for is refused with
// that node and op named. Skips, saying which module is missing, without torch or torchvision.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "engine/data/npy.h"
#include "support/cli_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

struct PyRun {
  int exitCode = -1;
  QString output;
};

PyRun exportModel(const QString& model, int size, const QString& dir) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start("/usr/bin/python3", {sourcePath("tests/support/torchvision_export.py"), model, QString::number(size), dir});
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

 private slots:
  void models_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("size");
    QTest::addColumn<QString>("refusal");  // empty: must import and match
    QTest::newRow("resnet18") << "resnet18" << 64 << "";
    QTest::newRow("mobilenet_v2") << "mobilenet_v2" << 64 << "";
    QTest::newRow("squeezenet1_1") << "squeezenet1_1" << 64 << "";
    QTest::newRow("densenet121") << "densenet121" << 64 << "";
    // Channel shuffle: Reshape to 5 axes, Transpose, Reshape; no Transpose layer yet.
    QTest::newRow("shufflenet_v2_x1_0") << "shufflenet_v2_x1_0" << 64 << "(op Transpose): no Netsmith layer computes Transpose";
  }
  void models() {
    QFETCH(QString, model);
    QFETCH(int, size);
    QFETCH(QString, refusal);
    QVERIFY(m_dir.isValid());
    const PyRun exported = exportModel(model, size, m_dir.path());
    if (exported.exitCode == 77) QSKIP(qPrintable(exported.output));
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.output));
    const QString onnx = m_dir.filePath(model + ".onnx"), project = m_dir.filePath("imported/" + model + ".nsproj");
    const CliRun import = runCli({"import", onnx, "--output", project});
    if (!refusal.isEmpty()) {
      QCOMPARE(import.exitCode, 1);
      QVERIFY2(import.stderrText.contains(refusal.toUtf8()), import.stderrText.constData());
      QVERIFY(!QFileInfo::exists(project));
      qInfo("%s: refused as expected: %s", qPrintable(model), import.stderrText.trimmed().constData());
      return;
    }
    QVERIFY2(import.exitCode == 0, import.stderrText.constData());
    const QString ours = m_dir.filePath(model + "-netsmith.npy");
    const CliRun infer = runCli({"infer", project, "--input", m_dir.filePath(model + "-x.npy"), "--output", ours});
    QVERIFY2(infer.exitCode == 0, infer.stderrText.constData());
    const NpyArray y = readNpy(ours.toStdString());
    for (const char* peer : {"torch", "ort"}) {
      const QString file = m_dir.filePath(model + "-" + peer + ".npy");
      if (!QFileInfo::exists(file)) {
        qInfo("%s: %s", qPrintable(model), qPrintable(exported.output));
        continue;
      }
      const NpyArray ref = readNpy(file.toStdString());
      QCOMPARE(y.values.size(), ref.values.size());
      double absolute = 0;
      const double relative = relativeDifference(y.values, ref.values, &absolute);
      qInfo("%s vs %s: max abs difference %.3g (%.3g of the output's scale)", qPrintable(model), peer, absolute, relative);
      QVERIFY2(relative <= 1e-3, qPrintable(QString("%1 vs %2: %3 of the scale").arg(model, peer).arg(relative)));
    }
  }
};

QTEST_GUILESS_MAIN(TorchvisionImportTest)
#include "tst_torchvision_import.moc"
