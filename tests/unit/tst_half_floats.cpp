// engine/core/half_floats.h — the 16-bit formats a GPU stores activations in (Note [16-bit
// activations]) — against references computed here another way: every one of the 65,536 bit
// patterns of each format survives a round trip; a float rounds to the nearest value of the
// format (ties to the even one), found by searching the sorted list of all finite values; and the
// host defaults of DeviceContext::convert and accumulateTensor use exactly these roundings.
// netsmith-test-labels: asan
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/half_floats.h"
#include "engine/core/rng.h"

using namespace netsmith;

namespace {

bool isNan16(uint16_t h, bool bf) { return bf ? (h & 0x7F80u) == 0x7F80u && (h & 0x7Fu) : (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu); }

// Every finite value of the format with its bits, sorted by value (−0 and +0 both kept).
struct Finite {
  float value;
  uint16_t bits;
};
std::vector<Finite> finiteValues(bool bf) {
  std::vector<Finite> out;
  for (uint32_t b = 0; b < 65536; ++b) {
    const auto h = static_cast<uint16_t>(b);
    const float v = bf ? bfloat16ToFloat(h) : halfToFloat(h);
    if (std::isfinite(v)) out.push_back({v, h});
  }
  std::sort(out.begin(), out.end(), [](const Finite& a, const Finite& b) { return a.value < b.value; });
  return out;
}

// The reference rounding: the nearest finite value (ties to the one with an even last bit);
// beyond the largest finite value, infinity once past the halfway point to the next power step.
uint16_t nearest(const std::vector<Finite>& values, float f, bool bf) {
  const double largest = values.back().value;
  const double step = bf ? std::ldexp(1.0, 127 - 7) : std::ldexp(1.0, 15 - 10);  // spacing at the top
  const uint16_t sign = std::signbit(f) ? 0x8000u : 0u;
  if (std::abs(static_cast<double>(f)) >= largest + step / 2) return sign | (bf ? 0x7F80u : 0x7C00u);
  auto above = std::lower_bound(values.begin(), values.end(), f, [](const Finite& a, float v) { return a.value < v; });
  if (above != values.end() && above->value == f) {
    if (f == 0.0f) return sign;  // the zero of f's sign
    return above->bits;
  }
  // Between the largest finite value (of either sign) and infinity's threshold: the largest.
  if (above == values.end()) return values.back().bits;
  if (above == values.begin()) return values.front().bits;
  const Finite& hi = *above;
  const Finite& lo = *(above - 1);
  const double dLo = static_cast<double>(f) - lo.value, dHi = static_cast<double>(hi.value) - f;
  if (dLo < dHi) return lo.value == 0.0f ? sign : lo.bits;
  if (dHi < dLo) return hi.value == 0.0f ? sign : hi.bits;
  const Finite& even = (lo.bits & 1u) == 0 ? lo : hi;
  return even.value == 0.0f ? sign : even.bits;
}

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

class HalfFloatsTest : public QObject {
  Q_OBJECT

 private slots:
  void everyPatternRoundTrips_data() {
    QTest::addColumn<bool>("bf");
    QTest::newRow("float16") << false;
    QTest::newRow("bfloat16") << true;
  }
  void everyPatternRoundTrips() {
    QFETCH(bool, bf);
    for (uint32_t b = 0; b < 65536; ++b) {
      const auto h = static_cast<uint16_t>(b);
      const float v = bf ? bfloat16ToFloat(h) : halfToFloat(h);
      const uint16_t back = bf ? floatToBFloat16(v) : floatToHalf(v);
      if (isNan16(h, bf)) {
        QVERIFY2(std::isnan(v) && isNan16(back, bf), qPrintable(QString::number(b, 16)));
        continue;
      }
      QVERIFY2(back == h, qPrintable(QString("0x%1 -> %2 -> 0x%3").arg(b, 0, 16).arg(double(v)).arg(back, 0, 16)));
    }
    // Known values.
    QCOMPARE(halfToFloat(0x3C00), 1.0f);
    QCOMPARE(halfToFloat(0x7BFF), 65504.0f);
    QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24));
    QCOMPARE(halfToFloat(0x0400), std::ldexp(1.0f, -14));
    QCOMPARE(bfloat16ToFloat(0x3F80), 1.0f);
    QCOMPARE(bfloat16ToFloat(0xC000), -2.0f);
  }

  // Random floats over the whole range, and the exact halfway points between neighbours.
  void roundsToNearestEven_data() { everyPatternRoundTrips_data(); }
  void roundsToNearestEven() {
    QFETCH(bool, bf);
    const std::vector<Finite> values = finiteValues(bf);
    auto check = [&](float f) {
      const uint16_t got = bf ? floatToBFloat16(f) : floatToHalf(f);
      const uint16_t want = nearest(values, f, bf);
      QVERIFY2(got == want, qPrintable(QString("%1 (0x%2): 0x%3, the nearest is 0x%4")
                                           .arg(double(f), 0, 'g', 12)
                                           .arg(QString::number(*reinterpret_cast<const uint32_t*>(&f), 16))
                                           .arg(got, 0, 16)
                                           .arg(want, 0, 16)));
    };
    Rng rng(29);
    for (int i = 0; i < 200000; ++i) {
      // Uniform bits: every exponent, subnormals of float32 included; skip NaN.
      const uint32_t u = static_cast<uint32_t>(rng.next());
      const float f = bitsToFloat(u);
      if (!std::isnan(f)) check(f);
    }
    for (size_t k = 1; k < values.size(); ++k) {  // halfway between neighbours, and just either side
      const double mid = (static_cast<double>(values[k - 1].value) + values[k].value) / 2;
      const float f = static_cast<float>(mid);
      if (static_cast<double>(f) != mid) continue;  // not a float (never for these formats)
      check(f);
      check(std::nextafter(f, -INFINITY));
      check(std::nextafter(f, INFINITY));
    }
    // The edge of the range: the largest finite value, the first float that rounds to infinity.
    const float top = values.back().value;
    check(top);
    check(std::nextafter(top, INFINITY));
    check(bf ? bitsToFloat(0x7F7FFFFFu) : 65519.99f);
    check(bf ? -bitsToFloat(0x7F7FFFFFu) : 65520.0f);
    QCOMPARE(floatToHalf(INFINITY), uint16_t{0x7C00});
    QCOMPARE(floatToHalf(-INFINITY), uint16_t{0xFC00});
    QCOMPARE(floatToBFloat16(INFINITY), uint16_t{0x7F80});
    QVERIFY(isNan16(floatToHalf(std::numeric_limits<float>::quiet_NaN()), false));
    QVERIFY(isNan16(floatToBFloat16(std::numeric_limits<float>::quiet_NaN()), true));
    QVERIFY(isNan16(floatToBFloat16(bitsToFloat(0x7F800001u)), true));  // a NaN with one low bit stays NaN
  }

  // The host defaults of DeviceContext (what the CPU backend and every test on the host use).
  void deviceContextConvertsAndAccumulates() {
    CpuDeviceContext device("cpu:0", 1, Precision::Float);  // DeviceContext's host conversions
    Tensor x(Shape{5});
    const float values[5] = {1.0f, 1.00390625f /* 1 + 2^-8: a bfloat16 tie */, -3.3f, 70000.0f, 1e-8f};
    std::copy(values, values + 5, x.data());
    Tensor bf(nullptr, Storage::BFloat16), half(nullptr, Storage::Float16);
    bf.resize({5});
    half.resize({5});
    QCOMPARE(bf.bytes(), int64_t{10});
    device.convert(bf, x);
    device.convert(half, x);
    for (int i = 0; i < 5; ++i) {
      QCOMPARE(bf.bits16()[i], floatToBFloat16(values[i]));
      QCOMPARE(half.bits16()[i], floatToHalf(values[i]));
    }
    QCOMPARE(bfloat16ToFloat(bf.bits16()[1]), 1.0f);  // tie to even
    QVERIFY(std::isinf(halfToFloat(half.bits16()[3])));
    Tensor back(Shape{5});
    device.convert(back, bf);
    QCOMPARE(back[2], bfloat16ToFloat(floatToBFloat16(-3.3f)));
    // acc (bfloat16) += x (float32): each sum in float32, rounded once.
    device.accumulateTensor(bf, x);
    for (int i = 0; i < 5; ++i) {
      const float sum = bfloat16ToFloat(floatToBFloat16(values[i])) + values[i];
      QCOMPARE(bf.bits16()[i], floatToBFloat16(sum));
    }
    Tensor wrong(Shape{4});
    QVERIFY_THROWS_EXCEPTION(Error, device.convert(wrong, x));
  }
};

QTEST_GUILESS_MAIN(HalfFloatsTest)
#include "tst_half_floats.moc"
