// Note [Precision]: what each config.precision asks of cuDNN, cuBLAS and the solver, and that the
// GPU solver takes its loss scaling from that table (on a simulated GPU).
#include <QtTest>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/cuda_solver.h"
#include "engine/backend/cuda/precision_math.h"
#include "engine/optim/optimizer.h"
#include "engine/project/project.h"

using namespace netsmith;
using namespace netsmith::cuda;

class TestPrecisionMath : public QObject {
  Q_OBJECT
 private slots:
  // float: IEEE float32 everywhere, so GPU results match the CPU kernels.
  void floatIsPlainFloat32() {
    const PrecisionMath m = precisionMath(Precision::Float);
    QCOMPARE(m.convolution, CUDNN_FMA_MATH);
    QCOMPARE(m.gemm, CUBLAS_COMPUTE_32F);
    QCOMPARE(m.cublasMode, CUBLAS_PEDANTIC_MATH);
    QCOMPARE(m.initialLossScale, 1.0f);
  }

  // half: fp16 conversions on tensor cores, and loss scaling against fp16's narrow exponent.
  void halfConvertsToFp16AndScalesTheLoss() {
    const PrecisionMath m = precisionMath(Precision::Half);
    QCOMPARE(m.convolution, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
    QCOMPARE(m.gemm, CUBLAS_COMPUTE_32F_FAST_16F);
    QVERIFY(m.initialLossScale > 1.0f);
  }

  // bfloat16: never an fp16 conversion (cuDNN's ALLOW_CONVERSION is one, and a bf16 run would
  // compute with fp16's range and no loss scaling); bf16 GEMMs, float32's exponent for
  // convolutions, no loss scaling.
  void bfloat16KeepsFloat32Range() {
    const PrecisionMath m = precisionMath(Precision::BFloat16);
    QVERIFY(m.convolution != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
    QCOMPARE(m.convolution, CUDNN_DEFAULT_MATH);
    QCOMPARE(m.gemm, CUBLAS_COMPUTE_32F_FAST_16BF);
    QVERIFY(m.gemm != CUBLAS_COMPUTE_32F_FAST_16F);
    QCOMPARE(m.initialLossScale, 1.0f);
  }

  void namesRoundTrip() {
    for (Precision p : {Precision::Float, Precision::Half, Precision::BFloat16})
      QCOMPARE(parsePrecision(precisionName(p)), p);
    QVERIFY_THROWS_EXCEPTION(Error, parsePrecision("fp8"));
  }

  // The solver of a (simulated) GPU starts from the table's loss scale.
  void solverLossScaleFollowsThePrecision() {
    OptimizerConfig config;
    config.solver = "Sgd";
    const auto optimizer = Optimizer::create(config);
    for (Precision p : {Precision::Float, Precision::Half, Precision::BFloat16}) {
      CudaOptions options;
      options.precision = p;
      CudaDeviceContext device("cuda:0", options);
      const auto solver = makeCudaSolver(*optimizer, device);
      QCOMPARE(solver->lossScale(), precisionMath(p).initialLossScale);
    }
  }
};

QTEST_GUILESS_MAIN(TestPrecisionMath)
#include "tst_precision_math.moc"
