// netsmith-test-labels: asan
// Damaged ONNX files given to `netsmith-cli import` (Note [ONNX import]): truncated at many
// lengths, bytes flipped, an opset out of range, an unknown operator, absurd dimensions, an empty
// file, a folder. Each is an error (exit status 1) whose message names the file, never a crash
// (under the asan label the CLI runs with AddressSanitizer), and nothing is written.
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;

namespace {

std::string readAll(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const QString& path, const std::string& bytes) {
  std::ofstream(path.toStdString(), std::ios::binary | std::ios::trunc) << bytes;
}

// The index of `needle` in `bytes` (a field of the model to damage), or npos.
size_t find(const std::string& bytes, const std::string& needle) { return bytes.find(needle); }

}  // namespace

class OnnxImportFuzzTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string m_model;  // a valid exported model's bytes
  int m_case = 0;

  // Imports `bytes`; the import must fail cleanly, name the file and write nothing.
  void expectRefused(const std::string& bytes, const QString& what, const QString& mustSay = {}) {
    const QString file = m_dir.filePath(QString("case%1.onnx").arg(m_case));
    const QString out = m_dir.filePath(QString("out%1/m.nsproj").arg(m_case));
    ++m_case;
    writeAll(file, bytes);
    const CliRun r = runCli({"import", file, "--output", out}, 120000);
    const QString message = QString::fromUtf8(r.stderrText);
    QVERIFY2(!r.crashed && r.exitCode == 1, qPrintable(what + ": exit " + QString::number(r.exitCode) + " " + message));
    QVERIFY2(message.contains(file), qPrintable(what + ": " + message));
    if (!mustSay.isEmpty()) QVERIFY2(message.contains(mustSay), qPrintable(what + ": " + message));
    QVERIFY2(!QFileInfo::exists(out), qPrintable(what));
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const std::string project = saveProject(m_dir, "lenet", sampleProject("fashion_mnist_lenet"));
    const QString run = m_dir.filePath("run");
    const CliRun train = runCli({"train", QString::fromStdString(project), "--max-epoch", "1", "--train-samples", "64",
                                 "--validation-samples", "32", "--run-dir", run, "--quiet"});
    QVERIFY2(train.exitCode == 0, train.stderrText.constData());
    const QString model = m_dir.filePath("lenet.onnx");
    QCOMPARE(runCli({"export", run, "--onnx", model}).exitCode, 0);
    m_model = readAll(model);
    QVERIFY(m_model.size() > 1000);
    // The valid model itself imports.
    QCOMPARE(runCli({"import", model, "--output", m_dir.filePath("valid/m.nsproj")}).exitCode, 0);
  }

  void truncatedFiles() {
    for (size_t length : {size_t{0}, size_t{1}, size_t{7}, size_t{40}, m_model.size() / 3, m_model.size() / 2,
                          m_model.size() - 100, m_model.size() - 1})
      expectRefused(m_model.substr(0, length), QString("truncated to %1 bytes").arg(length));
  }

  // Bytes flipped at many places: most damage the protobuf framing, some land in weights (and
  // then the model imports: only a clean outcome is required, an error naming the file or success).
  void flippedBytes() {
    uint32_t state = 7;
    for (int k = 0; k < 40; ++k) {
      std::string bytes = m_model;
      state = state * 1664525u + 1013904223u;
      const size_t at = (state >> 4) % std::min<size_t>(bytes.size(), 4000);  // the graph's structure comes first
      bytes[at] = static_cast<char>(bytes[at] ^ (1 << (k % 8)) ^ 0x5a);
      const QString file = m_dir.filePath(QString("flip%1.onnx").arg(k));
      writeAll(file, bytes);
      const QString out = m_dir.filePath(QString("flip%1/m.nsproj").arg(k));
      const CliRun r = runCli({"import", file, "--output", out}, 120000);
      QVERIFY2(!r.crashed && (r.exitCode == 0 || r.exitCode == 1), qPrintable(QString("flip at %1: exit %2 %3").arg(at).arg(r.exitCode).arg(QString::fromUtf8(r.stderrText))));
      if (r.exitCode == 1) {
        QVERIFY2(r.stderrText.contains(file.toUtf8()), r.stderrText.constData());
        QVERIFY(!QFileInfo::exists(out));
      }
    }
  }

  // The exporter writes opset 13 as the bytes 0x10 0x0d of OperatorSetIdProto's version field.
  void opsetOutOfRange() {
    std::string bytes = m_model;
    const size_t at = bytes.rfind(std::string("\x10\x0d", 2));
    QVERIFY(at != std::string::npos);
    bytes[at + 1] = 0x63;  // opset 99
    expectRefused(bytes, "opset 99", "opset 99; the importer reads opsets 7 to 18");
  }

  // An op type renamed to one no Netsmith layer computes (same length keeps the framing valid).
  void unknownOperator() {
    std::string bytes = m_model;
    const size_t at = find(bytes, "MaxPool");
    QVERIFY(at != std::string::npos);
    bytes.replace(at, 7, "Einsum7");
    expectRefused(bytes, "unknown op", "(op Einsum7): no Netsmith layer computes Einsum7");
  }

  // A weight whose dims claim far more values than it holds.
  void hugeDims() {
    std::string bytes = m_model;
    // TensorProto.dims is field 1 (varint): the first conv weight's "\x08\x10" (dims 16) becomes a
    // 10-byte varint is not possible in place; change 16 to 127 (one byte) instead: 127 x ... values
    // are claimed and the raw data holds fewer.
    const size_t at = find(bytes, std::string("\x08\x10\x08\x01\x08\x05\x08\x05", 8));
    if (at == std::string::npos) QSKIP("the first convolution's dims (16, 1, 5, 5) were not found in the exported bytes");
    bytes[at + 1] = 0x7f;
    expectRefused(bytes, "dims 127x1x5x5", "the file is damaged");
  }

  void notAFile() {
    const CliRun r = runCli({"import", m_dir.path(), "--output", m_dir.filePath("dir/m.nsproj")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.stderrText.contains("is a folder"), r.stderrText.constData());
    const CliRun missing = runCli({"import", m_dir.filePath("none.onnx"), "--output", m_dir.filePath("none/m.nsproj")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.stderrText.contains("does not exist"), missing.stderrText.constData());
    expectRefused("not an onnx model at all\n", "text", "not an ONNX model");
  }
};

QTEST_GUILESS_MAIN(OnnxImportFuzzTest)
#include "tst_onnx_import_fuzz.moc"
