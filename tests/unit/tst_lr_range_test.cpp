// The learning-rate range test's arithmetic (Note [Learning-rate range test]): the ramp of the
// schedule, the bias-corrected smoothing, and the suggestion at the steepest fall before the
// smallest loss.
#include <QtTest>

#include <cmath>

#include "engine/optim/lr_schedule.h"
#include "engine/study/lr_range_test.h"

using namespace netsmith;
using namespace netsmith::study;

class LrRangeTestTest : public QObject {
  Q_OBJECT

 private slots:
  void theRampIsGeometricAndHeld() {
    const auto s = LearningRateSchedule::rangeTest(1e-6, 1, 7);
    for (int i = 0; i < 7; ++i) QVERIFY(std::abs(s.at(i) / std::pow(10.0, -6 + i) - 1) < 1e-12);
    QCOMPARE(s.at(50), 1.0);
    QVERIFY_THROWS_EXCEPTION(Error, LearningRateSchedule::rangeTest(1, 1e-3, 10));
    QVERIFY_THROWS_EXCEPTION(Error, LearningRateSchedule::rangeTest(1e-3, 1, 1));
  }

  void smoothingIsBiasCorrected() {
    std::vector<RangeTestPoint> points(30);
    for (size_t i = 0; i < points.size(); ++i) points[i] = {int64_t(i + 1), 1e-5 * double(i + 1), 2.5, 0};
    smoothLosses(points);
    for (const auto& p : points) QVERIFY(std::abs(p.smoothed - 2.5) < 1e-12);  // a constant stays itself
  }

  void suggestsTheSteepestFallBeforeTheMinimum() {
    // Loss against log10(rate) from -7 to 1: flat at 2.3, falling fastest at 1e-3, lowest at
    // 1e-2, rising after (a steep rise later must not count).
    std::vector<RangeTestPoint> points;
    for (int i = 0; i <= 160; ++i) {
      const double x = -7 + 8.0 * i / 160;
      const double fall = 2.0 / (1 + std::exp(-(x + 3) * 4));  // steepest at x = -3
      const double rise = x > -2 ? 6 * (x + 2) * (x + 2) : 0;
      points.push_back({i + 1, std::pow(10.0, x), 2.3 - fall + rise, 0});
    }
    smoothLosses(points);
    const auto lowest = smallestLoss(points);
    const auto steepest = steepestDescent(points);
    QVERIFY(lowest && steepest);
    QVERIFY(*steepest < *lowest);
    const double at = std::log10(points[*steepest].lr);
    // The smoothing delays the curve by about 1/(1 - β) points: the fall shows a little later.
    QVERIFY2(at > -3.3 && at < -2.3, qPrintable(QString::number(at)));
    QVERIFY(std::log10(points[*lowest].lr) > -2.6 && std::log10(points[*lowest].lr) < -1.2);
    QVERIFY(!steepestDescent(std::vector<RangeTestPoint>(points.begin(), points.begin() + 2)));
  }
};

QTEST_GUILESS_MAIN(LrRangeTestTest)
#include "tst_lr_range_test.moc"
