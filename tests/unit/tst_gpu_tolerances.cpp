// Note [GPU tolerances] (tests/gpu/gpu_tolerance.h): the bounds netsmith-gpu-check holds GPU
// results to, checked here because the GPU checks themselves only run where a GPU is.
#include <QtTest>

#include "gpu/gpu_tolerance.h"

using namespace netsmith::gpucheck;

class TestGpuTolerances : public QObject {
  Q_OBJECT
 private slots:
  void reductionLengthIsTermsPerValue() {
    // A 3×3 convolution over 16 channels, batch 4, 8×8 outputs of 32 channels.
    const double outputs = 4.0 * 32 * 8 * 8, macs = outputs * 16 * 9;
    QCOMPARE(reductionLength(macs, 4.0 * 16 * 10 * 10, outputs), 144.0);
    // Its weight gradient: 32·16·9 values, each a sum over batch × output pixels.
    QCOMPARE(reductionLength(macs, 4.0 * 16 * 10 * 10, 32.0 * 16 * 9), 4.0 * 64);
    // A loss: no multiply-adds, 10 classes × batch 4 into 4 values.
    QCOMPARE(reductionLength(0, 40, 4), 10.0);
    // Element-wise, and degenerate sizes.
    QCOMPARE(reductionLength(0, 100, 100), 1.0);
    QCOMPARE(reductionLength(5, 5, 0), 1.0);
  }

  void toleranceGrowsWithTheReductionAndThePrecision() {
    QCOMPARE(gpuTolerance("float", 1), 1e-5);          // the floor
    QCOMPARE(gpuTolerance("float", 100), 1e-5);        // 8·2⁻²⁴·10 = 4.8e-6: still the floor
    QVERIFY(gpuTolerance("float", 1e6) > 1e-5);        // a long reduction: 8·2⁻²⁴·1000 = 4.8e-4
    QCOMPARE(gpuTolerance("float", 1e6), 8.0 * std::ldexp(1.0, -24) * 1000);
    QCOMPARE(gpuTolerance("half", 4), 8.0 * std::ldexp(1.0, -11) * 2);
    QCOMPARE(gpuTolerance("bfloat16", 4), 8.0 * std::ldexp(1.0, -8) * 2);
    QVERIFY(gpuTolerance("bfloat16", 64) > gpuTolerance("half", 64));
    QVERIFY(gpuTolerance("half", 64) > gpuTolerance("float", 64));
    QVERIFY(gpuTolerance("half", 576) > gpuTolerance("half", 9));
  }
};

QTEST_GUILESS_MAIN(TestGpuTolerances)
#include "tst_gpu_tolerances.moc"
