// Note [Weight averaging]: the host-device body of the average's step (the GPUs' kernel and the
// simulated GPUs run it too) on exact values, the CPU worker's device calls, and WeightAverage's
// start, update, exchange and checkpoint copies.
#include <QtTest>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/host_device/weight_average.h"
#include "engine/optim/weight_average.h"

using namespace netsmith;

namespace {

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

Tensor tensorOf(std::vector<float> values) {
  Tensor t({static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t[static_cast<int64_t>(i)] = values[i];
  return t;
}

std::vector<float> valuesOf(const Tensor& t) { return std::vector<float>(t.data(), t.data() + t.size()); }

}  // namespace

class WeightAverageTest : public QObject {
  Q_OBJECT
  CpuDeviceContext m_device{"cpu:0", 1};

 private slots:
  void initTestCase() { m_device.bindToCurrentThread(); }

  // Values whose sums and products are exact in float: the expected bits are known.
  void bodyOnExactValues() {
    // decay 0.75: weight 0.25 < 0.5, a + 0.25·(w − a)
    QCOMPARE(body::averagedValue(1.0f, 3.0f, 0.75f, 0.25f), 1.5f);
    QCOMPARE(body::averagedValue(-2.0f, 2.0f, 0.75f, 0.25f), -1.0f);
    // decay 0.25: weight 0.75, w − 0.25·(w − a)
    QCOMPARE(body::averagedValue(1.0f, 3.0f, 0.25f, 0.75f), 2.5f);
    // decay 0.5: the mean
    QCOMPARE(body::averagedValue(0.0f, 4.0f, 0.5f, 0.5f), 2.0f);
    // decay 0.9 (weight 0.1f): the float arithmetic exactly as written
    const float decay = 0.9f, weight = static_cast<float>(1.0 - 0.9);
    QVERIFY(sameBits(body::averagedValue(0.5f, 1.5f, decay, weight), 0.5f + weight * 1.0f));
  }

  // A value equal to the average stays itself bit for bit (d·a + (1 − d)·a need not).
  void unchangedValueKeepsItsBits() {
    for (const float v : {0.1f, -3.3333333f, 1e-30f, 12345.678f})
      for (const double d : {0.9, 0.999, 0.3, 1e-9}) {
        const float got = body::averagedValue(v, v, static_cast<float>(d), static_cast<float>(1.0 - d));
        QVERIFY2(sameBits(got, v), qPrintable(QString("%1 at decay %2 became %3").arg(v).arg(d).arg(got)));
      }
  }

  void deviceStepAndSkip() {
    Tensor average = tensorOf({0.0f, 8.0f, -4.0f});
    const Tensor value = tensorOf({4.0f, 0.0f, -4.0f});
    m_device.averageToward(average.data(), value.data(), 3, 0.5f, 0.5f, nullptr);
    QCOMPARE(valuesOf(average), (std::vector<float>{2.0f, 4.0f, -4.0f}));
    const int skip = 1;  // a skipped solver step leaves the average
    m_device.averageToward(average.data(), value.data(), 3, 0.5f, 0.5f, &skip);
    QCOMPARE(valuesOf(average), (std::vector<float>{2.0f, 4.0f, -4.0f}));
    const int go = 0;
    m_device.averageToward(average.data(), value.data(), 3, 0.5f, 0.5f, &go);
    QCOMPARE(valuesOf(average), (std::vector<float>{3.0f, 2.0f, -4.0f}));
  }

  void deviceExchange() {
    Tensor a = tensorOf({1.0f, 2.0f}), b = tensorOf({3.0f, 4.0f});
    m_device.exchange(a.data(), b.data(), 2);
    QCOMPARE(valuesOf(a), (std::vector<float>{3.0f, 4.0f}));
    QCOMPARE(valuesOf(b), (std::vector<float>{1.0f, 2.0f}));
  }

  // The average follows the weights step by step from the weights at start (decay 0.5).
  void averageFollowsTheWeights() {
    Tensor w = tensorOf({0.0f, 16.0f}), stats = tensorOf({1.0f});
    WeightAverage average(m_device, {{"fc/W", &w}, {"bn/mean", &stats}}, 0.5);
    QVERIFY(!average.started());
    average.start();
    for (const float step : {4.0f, 8.0f}) {
      w[0] = step;
      w[1] = -step;
      stats[0] += 1.0f;
      average.update(nullptr);
    }
    // w[0]: 0 → 2 (toward 4) → 5 (toward 8); w[1]: 16 → 6 → -1; stats: 1 → 1.5 → 2.25
    const auto copies = average.download();
    QCOMPARE(copies.size(), size_t{2});
    QCOMPARE(copies[0].first, std::string("ema/fc/W"));
    QCOMPARE(valuesOf(copies[0].second), (std::vector<float>{5.0f, -1.0f}));
    QCOMPARE(copies[1].first, std::string("ema/bn/mean"));
    QCOMPARE(valuesOf(copies[1].second), (std::vector<float>{2.25f}));
    // Exchanged in, the weights hold the average; exchanged back, the weights again.
    average.exchange();
    QCOMPARE(valuesOf(w), (std::vector<float>{5.0f, -1.0f}));
    average.exchange();
    QCOMPARE(valuesOf(w), (std::vector<float>{8.0f, -8.0f}));
    QCOMPARE(average.bytes(), int64_t{12});
  }

  // Before the first step the average is the weights (a checkpoint then holds them).
  void notStartedDownloadsTheWeights() {
    Tensor w = tensorOf({7.0f});
    WeightAverage average(m_device, {{"fc/W", &w}}, 0.9);
    QCOMPARE(valuesOf(average.download()[0].second), (std::vector<float>{7.0f}));
    QVERIFY(!average.started());
  }

  void restoreFromACheckpoint() {
    Tensor w = tensorOf({1.0f, 2.0f}), b = tensorOf({3.0f});
    WeightAverage average(m_device, {{"fc/W", &w}, {"fc/b", &b}}, 0.9);
    // None: an older checkpoint; the average will start from the weights.
    QVERIFY(!average.restore({}, "old.ckpt"));
    QVERIFY(!average.started());
    const Tensor savedW = tensorOf({5.0f, 6.0f}), savedB = tensorOf({7.0f}), wrong = tensorOf({1.0f, 2.0f, 3.0f});
    try {
      average.restore({{"ema/fc/W", &savedW}}, "half.ckpt");
      QFAIL("a checkpoint with part of the average was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("half.ckpt") != std::string::npos &&
                   std::string(e.what()).find("ema/fc/b") != std::string::npos,
               e.what());
    }
    try {
      average.restore({{"ema/fc/W", &wrong}, {"ema/fc/b", &savedB}}, "shape.ckpt");
      QFAIL("an average of another shape was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("shape.ckpt: ema/fc/W has shape") != std::string::npos, e.what());
    }
    QVERIFY(average.restore({{"ema/fc/W", &savedW}, {"ema/fc/b", &savedB}}, "good.ckpt"));
    QVERIFY(average.started());
    average.exchange();
    QCOMPARE(valuesOf(w), (std::vector<float>{5.0f, 6.0f}));
    QCOMPARE(valuesOf(b), (std::vector<float>{7.0f}));
  }

  void decayOutsideTheRangeIsRefused() {
    Tensor w = tensorOf({1.0f});
    for (const double d : {0.0, 1.0, -0.5}) {
      try {
        WeightAverage average(m_device, {{"fc/W", &w}}, d);
        QFAIL("a decay outside (0, 1) was accepted");
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find("optimizer.ema_decay") != std::string::npos, e.what());
      }
    }
  }
};

QTEST_GUILESS_MAIN(WeightAverageTest)
#include "tst_weight_average.moc"
