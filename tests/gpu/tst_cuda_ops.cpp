// Every op's CUDA forward and backward against its CPU kernels (gpu_check.h): relative error under
// 1e-5 in float, under 5e-2 in half and 1e-1 in bfloat16 (16-bit inputs to the tensor cores).
// Skips when there is no GPU.
#include <QtTest>

#include "gpu_check.h"

using namespace netsmith::gpucheck;

class TestCudaOps : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    const std::string why = gpuUnavailableReason("cuda:0");
    if (!why.empty()) QSKIP(qPrintable(QString("no GPU: ") + QString::fromStdString(why)));
  }

  void matchCpu_data() {
    QTest::addColumn<QString>("precision");
    QTest::newRow("float") << "float";
    QTest::newRow("half") << "half";
    QTest::newRow("bfloat16") << "bfloat16";
  }

  void matchCpu() {
    QFETCH(QString, precision);
    QString failures;
    int rows = 0;
    for (const OpResult& r : checkOps("cuda:0", precision.toStdString())) {
      ++rows;
      if (!r.passed())
        failures += QString("\n  %1/%2: forward %3, backward %4 (tolerance %5) %6%7")
                        .arg(QString::fromStdString(r.op), QString::fromStdString(r.variant))
                        .arg(r.forwardError)
                        .arg(r.backwardError)
                        .arg(r.tolerance)
                        .arg(QString::fromStdString(r.worst), QString::fromStdString(r.error));
    }
    QVERIFY(rows > 20);
    QVERIFY2(failures.isEmpty(), qPrintable(failures));
  }
};

QTEST_GUILESS_MAIN(TestCudaOps)
#include "tst_cuda_ops.moc"
