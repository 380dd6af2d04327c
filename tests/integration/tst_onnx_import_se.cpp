// An imported PyTorch classifier with squeeze-and-excitation blocks (tests/support/
// onnx_import_heads.py se: 1x1-convolution and Linear SE blocks, a Sub of per-channel means, a Div
// by a gate of the same shape and one by per-channel values, a final Linear of 10 raw scores),
// exported at opset 13 and imported with `netsmith-cli import`: the Mul, Sub and Div of two layers'
// outputs become Mul2, Sub2 and Div2 (Note [Elementwise import]); without --loss the import says it
// chose SoftmaxCrossEntropy because the model ends in a fully connected layer of 10 raw scores, and
// how to choose another (Note [Classifier output recognised]), and `infer` gives the softmax of
// PyTorch's and onnxruntime's outputs; with --loss SquaredError it gives their raw outputs (max abs
// difference <= 1e-5 both). --dry-run says the same and writes nothing. A Gemm of one output gets
// SquaredError saying why. onnxruntime comes from the test command's virtual environment (Note
// [Test Python]); without it the comparison with it is skipped, saying so.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "engine/data/npy.h"
#include "engine/project/project_io.h"
#include "support/cli_runner.h"
#include "support/test_python.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

constexpr double kTolerance = 1e-5;

struct PyRun {
  int exitCode = -1;
  QString output;
};

PyRun headsScript(const QString& python, const QString& what, const QString& dir) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(python, {sourcePath("tests/support/onnx_import_heads.py"), what, dir});
  p.waitForFinished(300000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll()).trimmed()};
}

// Softmax of each row of `values` (rows of `width`), in double.
std::vector<float> softmaxRows(const std::vector<float>& values, size_t width) {
  std::vector<float> out(values.size());
  for (size_t r = 0; r + width <= values.size(); r += width) {
    double top = values[r], sum = 0;
    for (size_t k = 0; k < width; ++k) top = std::max(top, double(values[r + k]));
    for (size_t k = 0; k < width; ++k) sum += std::exp(double(values[r + k]) - top);
    for (size_t k = 0; k < width; ++k) out[r + k] = static_cast<float>(std::exp(double(values[r + k]) - top) / sum);
  }
  return out;
}

double maxAbsDifference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = a.size() == b.size() ? 0 : INFINITY;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
  return worst;
}

int countOfType(const Project& p, const std::string& type) {
  int n = 0;
  for (const NodeSpec& node : p.network.nodes) n += node.type == type;
  return n;
}

}  // namespace

class OnnxImportSeTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_ortMessage;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  // infer on `project` with se-x.npy; the values, or empty after a failed check.
  std::vector<float> infer(const QString& project, const QString& tag) {
    const CliRun r = runCli({"infer", project, "--input", path("se-x.npy"), "--output", path(tag + ".npy")});
    if (r.exitCode != 0) qWarning("%s", r.stderrText.constData());
    return r.exitCode == 0 ? readNpy(path(tag + ".npy").toStdString()).values : std::vector<float>{};
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const PyRun made = headsScript(testPython(), "se", m_dir.path());
    if (made.exitCode == 77) QSKIP(qPrintable(made.output));
    QVERIFY2(made.exitCode == 0, qPrintable(made.output));
    m_ortMessage = made.output.section('\n', -1);
    const PyRun heads = headsScript("/usr/bin/python3", "heads", m_dir.path());
    QVERIFY2(heads.exitCode == 0, qPrintable(heads.output));
  }

  void classifierGetsSoftmaxCrossEntropySayingWhy() {
    const QString project = path("auto/se.nsproj");
    const CliRun import = runCli({"import", path("se.onnx"), "--output", project});
    QVERIFY2(import.exitCode == 0, import.stderrText.constData());
    const QString said = QString::fromUtf8(import.stdoutText);
    qInfo("%s", qPrintable(said));
    QVERIFY2(said.contains("Loss SoftmaxCrossEntropy: the model ends in Affine") && said.contains("giving 10 raw scores per "
                                                                                                 "sample, as a classifier does"),
             qPrintable(said));
    QVERIFY2(said.contains("Another loss: import again with --loss TYPE"), qPrintable(said));
    const Project p = loadProject(project.toStdString());
    QCOMPARE(QString::fromStdString(p.network.nodes.back().type), QString("SoftmaxCrossEntropy"));
    // Two SE Muls, the Sub of the means, two Divs (Note [Elementwise import]).
    QCOMPARE(countOfType(p, "Mul2"), 2);
    QCOMPARE(countOfType(p, "Sub2"), 1);
    QCOMPARE(countOfType(p, "Div2"), 2);

    // infer gives the softmax of the model's scores.
    const std::vector<float> y = infer(project, "auto");
    QCOMPARE(y.size(), size_t(4 * 10));
    for (const char* peer : {"torch", "ort"}) {
      const QString file = path(QString("se-%1.npy").arg(peer));
      if (!QFileInfo::exists(file)) continue;  // onnxruntime missing: said in the next test
      const double d = maxAbsDifference(y, softmaxRows(readNpy(file.toStdString()).values, 10));
      qInfo("probabilities vs softmax of %s: max abs difference %.3g", peer, d);
      QVERIFY2(d <= kTolerance, qPrintable(QString("%1: %2").arg(peer).arg(d)));
    }
  }

  void squeezeExcitationGivesThePeersOutputs() {
    const QString project = path("raw/se.nsproj");
    const CliRun import = runCli({"import", path("se.onnx"), "--output", project, "--loss", "SquaredError", "--json"});
    QVERIFY2(import.exitCode == 0, import.stderrText.constData());
    const Json summary = Json::parse(import.stdoutText.toStdString());
    QCOMPARE(QString::fromStdString(summary["loss"].get<std::string>()), QString("SquaredError"));
    QVERIFY2(summary["loss_reason"].get<std::string>().find("given with --loss (without it: SoftmaxCrossEntropy") == 0,
             summary.dump().c_str());
    const std::vector<float> y = infer(project, "raw");
    QCOMPARE(y.size(), size_t(4 * 10));
    bool withOrt = false;
    for (const char* peer : {"torch", "ort"}) {
      const QString file = path(QString("se-%1.npy").arg(peer));
      if (!QFileInfo::exists(file)) {
        QVERIFY2(QString(peer) == "ort", "PyTorch's outputs are missing");
        qWarning("se: NOT compared with onnxruntime (%s): compared with PyTorch only", qPrintable(m_ortMessage));
        continue;
      }
      withOrt = withOrt || QString(peer) == "ort";
      const double d = maxAbsDifference(y, readNpy(file.toStdString()).values);
      qInfo("se vs %s: max abs difference %.3g over %zu outputs", peer, d, y.size());
      QVERIFY2(d <= kTolerance, qPrintable(QString("%1: %2").arg(peer).arg(d)));
    }
    if (!withOrt)
      QSKIP(qPrintable(QString("onnxruntime is missing (%1): se NOT compared with onnxruntime, only with PyTorch; "
                               "installer/test.sh installs it into build/test-venv (Note [Test Python])")
                           .arg(m_ortMessage)));
  }

  void dryRunWritesNothing() {
    const QString project = path("dry/se.nsproj");
    const CliRun dry = runCli({"import", path("se.onnx"), "--dry-run", "--json"});
    QVERIFY2(dry.exitCode == 0, dry.stderrText.constData());
    const Json summary = Json::parse(dry.stdoutText.toStdString());
    QCOMPARE(summary["dry_run"], Json(true));
    QCOMPARE(QString::fromStdString(summary["loss"].get<std::string>()), QString("SoftmaxCrossEntropy"));
    const CliRun withOutput = runCli({"import", path("se.onnx"), "--dry-run", "--output", project});
    QVERIFY2(withOutput.exitCode == 0 && withOutput.stdoutText.contains("Nothing written (--dry-run)."),
             withOutput.stdoutText.constData());
    QVERIFY(!QFileInfo::exists(path("dry")));
  }

  void oneOutputGetsSquaredErrorSayingWhy() {
    const CliRun import = runCli({"import", path("gemm_regression.onnx"), "--output", path("regression/r.nsproj")});
    QVERIFY2(import.exitCode == 0, import.stderrText.constData());
    QVERIFY2(import.stdoutText.contains("Loss SquaredError: the model's output is one value per sample (from Affine 'fc'), "
                                        "as a regression's"),
             import.stdoutText.constData());
  }
};

QTEST_GUILESS_MAIN(OnnxImportSeTest)
#include "tst_onnx_import_se.moc"
