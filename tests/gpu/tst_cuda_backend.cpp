// The CUDA backend's presence as the build and the machine allow: in a build with the toolkit the
// "cuda" device kind and every op's "cuda" kernel are registered (this part runs on every machine);
// on a machine without a GPU, using cuda:0 fails with a sentence that says why, and training falls
// back to nothing silently — the plan accepts cuda:N, the context refuses it.
#include <QtTest>

#include "engine/devices/device_factory.h"
#include "engine/op_interface/op_registry.h"
#include "gpu_check.h"

using namespace netsmith;

class TestCudaBackend : public QObject {
  Q_OBJECT

 private slots:
  void kernelsRegisteredWhenBuilt() {
#ifdef NETSMITH_HAVE_CUDA
    QVERIFY(findDeviceKind("cuda:0") != nullptr);
    for (const OpSchema* s : OpRegistry::builtin().all()) {
      if (s->isInput) continue;
      QVERIFY2(s->kernels.count("cuda"), qPrintable(QString::fromStdString(s->name) + " has no cuda kernel"));
    }
#else
    QVERIFY(findDeviceKind("cuda:0") == nullptr);
    QSKIP("this build has no CUDA backend");
#endif
  }

  void noGpuIsReportedNotCrashed() {
    const std::string why = gpucheck::gpuUnavailableReason("cuda:0");
    if (why.empty()) QSKIP("this machine has a GPU");
    QVERIFY(!why.empty());
    qInfo("cuda:0 unavailable: %s", why.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCudaBackend)
#include "tst_cuda_backend.moc"
