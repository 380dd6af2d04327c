// Epoch order (shuffling) and batch gathering over a Dataset.
#include <QtTest>
#include <algorithm>
#include <numeric>

#include "engine/core/error.h"
#include "engine/data/dataset.h"

using namespace netsmith;

namespace {
bool isPermutation(std::vector<int64_t> order, int64_t n) {
  if (static_cast<int64_t>(order.size()) != n) return false;
  std::sort(order.begin(), order.end());
  for (int64_t i = 0; i < n; ++i)
    if (order[i] != i) return false;
  return true;
}

Dataset tinyDataset() {
  Dataset ds;
  ds.source = "tiny";
  ds.sampleShape = {1, 2, 2};
  ds.size = 5;
  for (int i = 0; i < 20; ++i) ds.features.push_back(static_cast<float>(i));
  ds.labels = {0, 1, 2, 3, 4};
  ds.numClasses = 5;
  return ds;
}
}  // namespace

class TestDatasetBatch : public QObject {
  Q_OBJECT

 private slots:
  void epochOrderIsAPermutation_data() {
    QTest::addColumn<qint64>("size");
    QTest::newRow("0") << qint64(0);
    QTest::newRow("1") << qint64(1);
    QTest::newRow("2") << qint64(2);
    QTest::newRow("1000") << qint64(1000);
    QTest::newRow("60000") << qint64(60000);
  }
  void epochOrderIsAPermutation() {
    QFETCH(qint64, size);
    for (int64_t epoch = 0; epoch < 3; ++epoch) QVERIFY(isPermutation(epochOrder(size, 7, epoch, true), size));
  }

  void epochOrderIsAPureFunctionOfSeedAndEpoch() {
    const auto a = epochOrder(1000, 42, 3, true);
    QCOMPARE(epochOrder(1000, 42, 3, true), a);
    (void)epochOrder(1000, 42, 4, true);  // no hidden state between calls
    QCOMPARE(epochOrder(1000, 42, 3, true), a);
  }

  void epochOrderDiffersBetweenEpochsAndSeeds() {
    const auto e0 = epochOrder(1000, 42, 0, true);
    const auto e1 = epochOrder(1000, 42, 1, true);
    const auto e2 = epochOrder(1000, 42, 2, true);
    const auto s1 = epochOrder(1000, 43, 0, true);
    QVERIFY(e0 != e1);
    QVERIFY(e1 != e2);
    QVERIFY(e0 != e2);
    QVERIFY(e0 != s1);
    std::vector<int64_t> identity(1000);
    std::iota(identity.begin(), identity.end(), 0);
    QVERIFY(e0 != identity);
    // Neighbouring epochs are unrelated: few positions agree (about 1 expected by chance).
    int same = 0;
    for (size_t i = 0; i < e0.size(); ++i) same += e0[i] == e1[i];
    QVERIFY2(same < 20, qPrintable(QString::number(same)));
  }

  void noShuffleIsIdentity() {
    const auto order = epochOrder(10, 42, 5, false);
    QCOMPARE(order, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  }

  void gatherBatchCopiesSamplesAndLabels() {
    const Dataset ds = tinyDataset();
    Tensor x, y;
    const std::vector<int64_t> idx{4, 0, 2};
    gatherBatch(ds, idx, x, y);
    QCOMPARE(x.shape(), (Shape{3, 1, 2, 2}));
    QCOMPARE(y.shape(), (Shape{3, 1}));
    for (int i = 0; i < 3; ++i) {
      for (int k = 0; k < 4; ++k) QCOMPARE(x[i * 4 + k], static_cast<float>(idx[i] * 4 + k));
      QCOMPARE(y[i], static_cast<float>(idx[i]));
    }
    // A smaller last batch reuses the tensors.
    const std::vector<int64_t> last{1};
    gatherBatch(ds, last, x, y);
    QCOMPARE(x.shape(), (Shape{1, 1, 2, 2}));
    QCOMPARE(x[3], 7.0f);
    QCOMPARE(y[0], 1.0f);
  }

  void gatherBatchRejectsBadIndex() {
    const Dataset ds = tinyDataset();
    Tensor x, y;
    const std::vector<int64_t> idx{1, 5};
    try {
      gatherBatch(ds, idx, x, y);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("5") && QString(e.what()).contains("out of range"), e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestDatasetBatch)
#include "tst_dataset_batch.moc"
