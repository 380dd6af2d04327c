// NCCL between the GPU ranks of one process (engine/backend/cuda/nccl_group.h): all-reduce,
// broadcast, barrier and abort with one rank, and with every GPU of the machine when it has more
// than one. Skips when there is no GPU.
#include <QtTest>

#include "gpu_check.h"

using namespace netsmith::gpucheck;

class TestNccl : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    const std::string why = gpuUnavailableReason("cuda:0");
    if (!why.empty()) QSKIP(qPrintable(QString("no GPU: ") + QString::fromStdString(why)));
  }

  void oneRank() {
    const std::string e = checkNccl({"cuda:0"});
    QVERIFY2(e.empty(), e.c_str());
  }

  void twoRanks() {
    if (!gpuUnavailableReason("cuda:1").empty()) QSKIP("one GPU only");
    const std::string e = checkNccl({"cuda:0", "cuda:1"});
    QVERIFY2(e.empty(), e.c_str());
  }
};

QTEST_GUILESS_MAIN(TestNccl)
#include "tst_nccl.moc"
