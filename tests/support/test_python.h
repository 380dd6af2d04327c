// The Python interpreter that the ONNX and TensorBoard tests run their helper scripts with (Note
// [Test Python]).
#pragma once

#include <QByteArray>
#include <QFileInfo>
#include <QString>

namespace netsmith::test {

// Note [Test Python]
// onnxruntime is not a Debian package, so README's test command (installer/test.sh) makes a
// virtual environment over Debian's Python with its system packages (python3-torch, -numpy,
// -onnx stay Debian's) and pip-installs onnxruntime into it: NETSMITH_TEST_PYTHON, a CMake cache
// variable, default build/test-venv/bin/python3. The tests run their torch and onnxruntime
// scripts with $NETSMITH_ORT_PYTHON when set, else that interpreter when it exists, else
// /usr/bin/python3. Where onnxruntime is not importable (pip had no network, or ctest run without
// the test command) the comparisons with it are skipped with a message saying so and naming what
// was compared with PyTorch only; onnx.checker runs with Debian's /usr/bin/python3 always. The same
// environment gets the tensorboard package (pip; it brings its own protobuf, which Debian's onnx
// works with), whose own reader tst_tensorboard reads the runs' event files with; without it that
// test checks the files' framing only and skips, saying what it did not compare.
inline QString testPython() {
  const QByteArray env = qgetenv("NETSMITH_ORT_PYTHON");
  if (!env.isEmpty()) return QString::fromUtf8(env);
#ifdef NETSMITH_TEST_PYTHON
  const QString venv = QStringLiteral(NETSMITH_TEST_PYTHON);
  if (QFileInfo(venv).isExecutable()) return venv;
#endif
  return QStringLiteral("/usr/bin/python3");
}

}  // namespace netsmith::test
