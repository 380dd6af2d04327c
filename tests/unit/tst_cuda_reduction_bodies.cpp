// The GPU's deterministic reductions (Note [Deterministic GPU reductions]; issue 29, item 3), run
// on the CPU: the plan, the per-thread and per-block steps and the terms and sinks of Sum, Mean,
// Max, the broadcast gradient of Mul2/Sub2/Div2, PReLU's slope gradient and the row
// normalizations, each emulated in the GPU's thread and block decomposition (emulated_reduction.h)
// and compared with the serial bodies the CPU backend runs (index_view.h) or a plain loop. Sums in
// double may differ from the serial loop's only in their last bits, so those are compared within
// 2^-23 of the result plus 1e-11 of Σ|terms|; a wrong index or a lost term is off by far more. The
// arg-max is order-free and compared bit for bit. Every result is also required to be the same
// bits under a second launch (3 blocks, run last to first), and a sample's sum the same bits in a
// batch of 1 and of 3: the order depends on the count and the layout only. The shapes cover every
// branch of the plan: a thread per output, a block per output, chunks over several blocks with a
// second (and a third) level, and the Columns layout with and without chunks.
// netsmith-test-labels: asan

#include <QtTest>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "emulated_reduction.h"
#include "engine/core/rng.h"
#include "engine/host_device/index_view_build.h"
#include "engine/host_device/index_view_reductions.h"
#include "engine/ops/prelu/cuda_math.h"
#include "engine/ops/row_normalization_reductions.h"

using namespace netsmith;
using namespace netsmith::cuda;
using test::EmulatedLaunch;
using test::emulateReduction;

namespace {

using Floats = std::vector<float>;
const EmulatedLaunch kOtherLaunch{3, true};

Floats randomFloats(int64_t n, Rng& rng, float lo = -1.0f, float hi = 1.0f) {
  Floats v(static_cast<size_t>(n));
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}

bool sameBits(const Floats& a, const Floats& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// |got − want| ≤ 2^-23·|want| + 1e-11·scale[i] (scale: Σ|terms| of output i) for every i.
void checkClose(const Floats& got, const Floats& want, const std::vector<double>& scale, const QString& what) {
  QCOMPARE(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double bound = 1.2e-7 * std::fabs(want[i]) + 1e-11 * scale[i];
    QVERIFY2(std::fabs(static_cast<double>(got[i]) - want[i]) <= bound,
             qPrintable(QString("%1, output %2: %3 vs %4").arg(what).arg(i).arg(got[i], 0, 'g', 9).arg(want[i], 0, 'g', 9)));
  }
}

// got = run(the default launch); run(kOtherLaunch) must give the same bits.
#define LAUNCH_INDEPENDENT(got, run, what)                 \
  const Floats got = (run)(EmulatedLaunch{});              \
  QVERIFY2(sameBits(got, (run)(kOtherLaunch)), qPrintable(QString(what) + ": another launch shape changed the bits"))

// A Sum (Mean) on the GPU as CudaReduceKernel runs it, emulated.
Floats gpuSum(const ReduceView& view, int64_t batch, const Floats& x, float scale, EmulatedLaunch launch = {}) {
  const ReduceView v = withBatchSize(collapsed(view), batch);
  const int64_t outputs = static_cast<int64_t>(x.size()) / v.count;
  Floats y(static_cast<size_t>(outputs));
  emulateReduction(outputs, v.count, reduceLayout(view), body::ReduceSumTerms{v, x.data()},
                   ScaledSumSink{y.data(), scale}, launch);
  return y;
}

struct SumCase {
  Shape sample;
  std::vector<bool> reduced;
  int64_t batch;
  ReduceLayout layout;  // what reduceLayout must choose
};

class TestCudaReductionBodies : public QObject {
  Q_OBJECT
  Rng m_rng{2029};

 private slots:
  // planReduction's branches, and the levels it stacks.
  void planPicksTheShapeFromTheCount() {
    const auto levels = [](int64_t count, ReduceLayout layout) { return planReduction(10, count, layout); };
    QCOMPARE(levels(1, ReduceLayout::Rows).levels, 1);
    QVERIFY(!levels(kSerialTerms, ReduceLayout::Rows).level[0].block);
    QVERIFY(levels(kSerialTerms + 1, ReduceLayout::Rows).level[0].block);
    QCOMPARE(levels(kBlockTerms, ReduceLayout::Rows).levels, 1);
    const ReductionPlan two = levels(kBlockTerms + 1, ReduceLayout::Rows);
    QCOMPARE(two.levels, 2);
    QCOMPARE(two.level[0].chunks, int64_t{2});
    QVERIFY(!two.level[1].block);
    QCOMPARE(two.scratchChunks[0], int64_t{2});
    const ReductionPlan million = levels(1000000, ReduceLayout::Rows);
    QCOMPARE(million.levels, 2);
    QCOMPARE(million.level[0].chunks, int64_t{245});
    QVERIFY(million.level[1].block);  // 245 partials: a block
    QCOMPARE(levels(kBlockTerms * kBlockTerms + 1, ReduceLayout::Rows).levels, 3);
    QCOMPARE(levels(kColumnTerms, ReduceLayout::Columns).levels, 1);
    const ReductionPlan columns = levels(kColumnTerms * kColumnTerms + 1, ReduceLayout::Columns);
    QCOMPARE(columns.levels, 3);
    QVERIFY(!columns.level[0].block && !columns.level[1].block);
    QCOMPARE(columns.scratchChunks[0], int64_t{kColumnTerms + 1});
    QCOMPARE(columns.scratchChunks[1], int64_t{2});
  }

  // collapsed() must keep base(o) and offset(r) for every o and r, and merge what is contiguous.
  void collapsedViewsReadTheSameElements() {
    const ReduceView inner = collapsed(reduceView({2, 3, 4, 5}, {false, false, true, true}));
    QCOMPARE(inner.redRank, 1);
    QCOMPARE(inner.redStride[0], int64_t{1});
    QCOMPARE(inner.keptRank, 2);  // the batch, then (2, 3) as one dimension of stride 20
    QCOMPARE(inner.keptStride[1], int64_t{20});
    const ReduceView outer = collapsed(reduceView({2, 1, 3, 4}, {true, true, true, false}));
    QCOMPARE(outer.redRank, 1);
    QCOMPARE(outer.redDims[0], int64_t{6});
    QCOMPARE(outer.redStride[0], int64_t{4});
    for (int trial = 0; trial < 300; ++trial) {
      Shape shape;
      std::vector<bool> reduced;
      const int rank = 1 + static_cast<int>(m_rng.next() % 5);
      for (int d = 0; d < rank; ++d) {
        shape.push_back(1 + static_cast<int64_t>(m_rng.next() % 4));
        reduced.push_back(m_rng.next() % 2 == 0);
      }
      const ReduceView v = withBatchSize(reduceView(shape, reduced), 2), c = withBatchSize(collapsed(v), 2);
      QVERIFY(c.keptRank <= v.keptRank && c.redRank <= v.redRank);
      const int64_t outputs = 2 * numel(shape) / v.count;
      for (int64_t o = 0; o < outputs; ++o) QCOMPARE(c.base(o), v.base(o));
      for (int64_t r = 0; r < v.count; ++r) QCOMPARE(reducedOffset(c, r), v.offset(r));
    }
  }

  void sumAndMeanMatchTheSerialSum() {
    const std::vector<SumCase> cases{
        {{3}, {true}, 2, ReduceLayout::Rows},                           // 3 terms: a thread each
        {{500, 37}, {false, true}, 2, ReduceLayout::Rows},              // a block each, lanes part-empty
        {{1000, 1000}, {true, true}, 1, ReduceLayout::Rows},            // one output, 10^6 terms: 245 chunks
        {{7, 4099}, {false, true}, 3, ReduceLayout::Rows},              // 2 chunks, odd sizes
        {{300, 50}, {true, false}, 3, ReduceLayout::Columns},           // axis 0: 5 chunks of rows
        {{4, 100, 6}, {false, true, false}, 2, ReduceLayout::Columns},  // a middle axis
        {{70, 5, 9}, {true, false, false}, 1, ReduceLayout::Columns},   // 2 chunks
        {{6, 33, 1}, {true, false, true}, 2, ReduceLayout::Columns},
        {{2, 3, 4, 5}, {false, true, false, true}, 2, ReduceLayout::Rows},
    };
    for (const SumCase& c : cases) {
      const QString what = QString("Sum over (%1)").arg(QString::fromStdString(shapeToString(c.sample)));
      const ReduceView view = reduceView(c.sample, c.reduced);
      QCOMPARE(reduceLayout(view), c.layout);
      const Floats x = randomFloats(c.batch * numel(c.sample), m_rng, -1.0f, 3.0f);
      const float scale = 1.0f / static_cast<float>(view.count);  // Mean's
      const auto run = [&](EmulatedLaunch l) { return gpuSum(view, c.batch, x, scale, l); };
      LAUNCH_INDEPENDENT(got, run, what);
      const ReduceView v = withBatchSize(view, c.batch);
      Floats want(got.size());
      std::vector<double> magnitude(got.size());
      for (int64_t o = 0; o < static_cast<int64_t>(got.size()); ++o) {
        body::SumReduce{v, scale}(o, x.data(), want.data());
        for (int64_t r = 0; r < v.count; ++r) magnitude[o] += std::fabs(x[v.base(o) + v.offset(r)]) * scale;
      }
      checkClose(got, want, magnitude, what);
      // The first sample alone: the same bits as in the batch.
      const Floats first(x.begin(), x.begin() + numel(c.sample));
      const Floats alone = gpuSum(view, 1, first, scale);
      QVERIFY2(sameBits(alone, Floats(got.begin(), got.begin() + alone.size())), qPrintable(what + ": batch of 1"));
    }
  }

  // 4096² + 5 terms: three levels (two of partials); terms made on the fly.
  void threeLevelSumMatchesTheSerialSum() {
    struct Generated {
      using Value = double;
      int64_t prepare(int64_t o) const { return o; }
      double operator()(int64_t o, int64_t, int64_t r) const { return std::sin(0.001 * r + o) + 0.25; }
    };
    const int64_t count = kBlockTerms * kBlockTerms + 5;
    const ReductionPlan plan = planReduction(2, count, ReduceLayout::Rows);
    QCOMPARE(plan.levels, 3);
    Floats got(2);
    emulateReduction(plan, Generated{}, ScaledSumSink{got.data()});
    Floats want(2);
    std::vector<double> magnitude(2);
    for (int64_t o = 0; o < 2; ++o) {
      double sum = 0.0;
      for (int64_t r = 0; r < count; ++r) {
        sum += Generated{}(o, o, r);
        magnitude[o] += std::fabs(Generated{}(o, o, r));
      }
      want[o] = static_cast<float>(sum);
    }
    checkClose(got, want, magnitude, "three levels");
  }

  // Max: the value and the gradient's element are argMax's exactly, with ties, ±0, -inf and NaN.
  void maxIsTheSerialArgMax() {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const std::vector<SumCase> cases{{{9}, {true}, 3, ReduceLayout::Rows},
                                     {{5, 40}, {false, true}, 2, ReduceLayout::Rows},
                                     {{3, 5000}, {false, true}, 2, ReduceLayout::Rows},
                                     {{200, 7}, {true, false}, 2, ReduceLayout::Columns}};
    for (const SumCase& c : cases) {
      const QString what = QString("Max over (%1)").arg(QString::fromStdString(shapeToString(c.sample)));
      const ReduceView view = reduceView(c.sample, c.reduced);
      const ReduceView v = withBatchSize(collapsed(view), c.batch), serial = withBatchSize(view, c.batch);
      Floats x(static_cast<size_t>(c.batch * numel(c.sample)));
      for (float& e : x) e = static_cast<float>(m_rng.next() % 5) - 2.0f;  // many ties
      const int64_t outputs = static_cast<int64_t>(x.size()) / v.count;
      for (int64_t o = 0; o < outputs; ++o) {  // per output a twist: NaN first, NaNs later, ±0, -inf
        const auto at = [&](int64_t r) -> float& { return x[static_cast<size_t>(serial.base(o) + serial.offset(r))]; };
        switch (o % 5) {
          case 0: at(0) = nan; break;
          case 1:  // NaNs later are skipped, also before the largest value
            for (int64_t r = 1; r < v.count; r += 2) at(r) = nan;
            at(v.count - 1) = 9.0f;
            break;
          case 2: for (int64_t r = 0; r < v.count; ++r) at(r) = r % 2 ? 0.0f : -0.0f; break;
          case 3: for (int64_t r = 0; r < v.count; ++r) at(r) = -inf; break;
          default: break;
        }
      }
      const Floats dy = randomFloats(outputs, m_rng);
      const auto run = [&](EmulatedLaunch l) {
        Floats out(static_cast<size_t>(outputs) + x.size(), 0.0f);  // y, then dx
        emulateReduction(outputs, v.count, reduceLayout(view), body::ReduceMaxTerms{v, x.data()},
                         body::MaxValueSink{out.data()}, l);
        emulateReduction(outputs, v.count, reduceLayout(view), body::ReduceMaxTerms{v, x.data()},
                         body::MaxGradientSink{v, dy.data(), out.data() + outputs}, l);
        return out;
      };
      LAUNCH_INDEPENDENT(got, run, what);
      Floats want(got.size());
      for (int64_t o = 0; o < outputs; ++o) {
        body::MaxReduce{serial}(o, x.data(), want.data());
        body::MaxReduceBackward{serial}(o, x.data(), dy.data(), want.data() + outputs);
      }
      QVERIFY2(sameBits(got, want), qPrintable(what));
    }
  }

  // Sum's backward, one element per thread, is SumReduceBackward's.
  void sumBackwardSpreadsLikeTheSerialBody() {
    const Shape sample{4, 6, 5};
    for (const std::vector<bool>& reduced : {std::vector<bool>{false, true, true}, {true, false, true}, {true, true, true}}) {
      const ReduceView view = reduceView(sample, reduced);
      const ReduceView v = withBatchSize(collapsed(view), 3), serial = withBatchSize(view, 3);
      const int64_t outputs = 3 * numel(sample) / v.count;
      const Floats dy = randomFloats(outputs, m_rng);
      Floats got(static_cast<size_t>(3 * numel(sample))), want(got.size());
      const body::SumReduceSpread spread{v, 0.25f};
      for (int64_t i = 0; i < outputs * v.count; ++i) spread(i, dy.data(), got.data());
      for (int64_t o = 0; o < outputs; ++o) body::SumReduceBackward{serial, 0.25f}(o, dy.data(), want.data());
      QVERIFY(sameBits(got, want));
    }
  }

  void broadcastGradientMatchesBinaryBackward() {
    struct Case {
      Shape a, b;
      body::BinaryOp op;
    };
    const std::vector<Case> cases{{{3, 1, 1}, {3, 90, 100}, body::BinaryOp::Mul},   // (C,1,1): 9000 terms, chunks
                                  {{150, 30, 40}, {1, 30, 40}, body::BinaryOp::Div},  // b over C: Columns
                                  {{5, 7}, {5, 7}, body::BinaryOp::Sub},              // no broadcast: 1 term
                                  {{6, 1, 35}, {1, 33, 1}, body::BinaryOp::Mul}};     // both broadcast
    for (const Case& c : cases) {
      const int64_t batch = 2;
      const Shape out = broadcastShape(c.a, c.b, "test");
      const BroadcastView view = withBatchSize(broadcastView(c.a, c.b, out), batch);
      const Floats a = randomFloats(batch * numel(c.a), m_rng), b = randomFloats(batch * numel(c.b), m_rng, 0.5f, 2.0f);
      const Floats dy = randomFloats(batch * numel(out), m_rng);
      for (int k = 0; k < 2; ++k) {
        const QString what = QString("gradient of input %1 of (%2) x (%3)").arg(k)
                                 .arg(QString::fromStdString(shapeToString(c.a))).arg(QString::fromStdString(shapeToString(c.b)));
        const ReduceView grad = broadcastGradView(k ? c.b : c.a, out);
        const ReduceView sum = withBatchSize(collapsed(grad), batch);
        const int64_t outputs = batch * numel(k ? c.b : c.a);
        const body::BinaryGradientTerms terms{view, sum, c.op, k == 1, a.data(), b.data(), dy.data()};
        const auto run = [&](EmulatedLaunch l) {
          Floats g(static_cast<size_t>(outputs));
          emulateReduction(outputs, sum.count, reduceLayout(grad), terms, ScaledSumSink{g.data()}, l);
          return g;
        };
        LAUNCH_INDEPENDENT(got, run, what);
        Floats want(got.size());
        std::vector<double> magnitude(got.size());
        const body::BinaryBackward serial{view, withBatchSize(grad, batch), c.op, k == 1};
        for (int64_t j = 0; j < outputs; ++j) {
          serial(j, a.data(), b.data(), dy.data(), want.data());
          for (int64_t r = 0; r < sum.count; ++r) magnitude[j] += std::fabs(terms(j, terms.prepare(j), r));
        }
        checkClose(got, want, magnitude, what);
      }
    }
  }

  void preluSlopeGradientMatchesThePlainSum() {
    struct Case {
      int64_t rows, channels, inner;
    };
    // Shared slope over 10^6 elements; a slope per channel of planes; per channel with inner 1
    // (Columns, 16 chunks); tiny.
    for (const Case& c : {Case{4, 1, 250000}, Case{4, 3, 5000}, Case{1000, 100, 1}, Case{2, 2, 3}}) {
      const QString what = QString("PReLU slopes, rows %1 channels %2 inner %3").arg(c.rows).arg(c.channels).arg(c.inner);
      const int64_t n = c.rows * c.channels * c.inner;
      const int64_t channels = c.channels, inner = c.channels == 1 ? 1 : c.inner;  // shared: one run
      const Floats x = randomFloats(n, m_rng), dy = randomFloats(n, m_rng);
      const int64_t count = n / channels;
      const auto run = [&](EmulatedLaunch l) {
        Floats g(static_cast<size_t>(channels));
        emulateReduction(channels, count, preluSlopeLayout(channels, inner),
                         PreluSlopeTerms{x.data(), dy.data(), channels, inner}, ScaledSumSink{g.data()}, l);
        return g;
      };
      LAUNCH_INDEPENDENT(got, run, what);
      std::vector<double> sum(static_cast<size_t>(channels)), magnitude(sum.size());
      for (int64_t i = 0; i < n; ++i) {
        const int64_t s = preluChannel(i, channels, inner);
        sum[s] += preluSlopeTerm(x[i], dy[i]);
        magnitude[s] += std::fabs(preluSlopeTerm(x[i], dy[i]));
      }
      checkClose(got, Floats(sum.begin(), sum.end()), magnitude, what);
    }
  }

  void rowNormalizationSumsMatchPlainLoops();
};

// Layer-, Instance- and GroupNormalization's geometry: statistics, gradient row sums and the
// parameter gradients, each against a plain double loop.
void TestCudaReductionBodies::rowNormalizationSumsMatchPlainLoops() {
  struct Case {
    const char* name;
    int64_t rows, rowLength, paramInner, paramCount;
  };
  for (const Case& c : {Case{"LayerNormalization, long rows", 3, 5000, 1, 5000},
                        Case{"LayerNormalization, many short rows", 1000, 24, 1, 24},
                        Case{"InstanceNormalization", 5 * 6, 49, 49, 6},
                        Case{"GroupNormalization", 3 * 2, 4 * 9, 9, 8}}) {
    const int64_t n = c.rows * c.rowLength;
    const Floats x = randomFloats(n, m_rng, 2.0f, 3.0f), dy = randomFloats(n, m_rng);
    const Floats gamma = randomFloats(c.paramCount, m_rng, 0.5f, 1.5f);
    const auto run = [&](EmulatedLaunch l) {
      std::vector<double> rowMean(static_cast<size_t>(c.rows)), rowSums(static_cast<size_t>(2 * c.rows));
      // mean, invStd (rows each), the gradient's row sums (2·rows), dbeta, dgamma (paramCount each)
      Floats out(static_cast<size_t>(4 * c.rows + 2 * c.paramCount));
      float *mean = out.data(), *invStd = mean + c.rows, *dbeta = out.data() + 4 * c.rows, *dgamma = dbeta + c.paramCount;
      emulateReduction(c.rows, c.rowLength, ReduceLayout::Rows, rownorm::RowValueTerms{x.data(), c.rowLength},
                       rownorm::RowMeanSink{rowMean.data(), c.rowLength}, l);
      emulateReduction(c.rows, c.rowLength, ReduceLayout::Rows,
                       rownorm::RowSquaredDeviationTerms{x.data(), rowMean.data(), c.rowLength},
                       rownorm::RowStatisticsSink{rowMean.data(), c.rowLength, 1e-5f, mean, invStd}, l);
      emulateReduction(c.rows, c.rowLength, ReduceLayout::Rows,
                       rownorm::RowGradientTerms{x.data(), dy.data(), gamma.data(), mean, invStd, c.rowLength,
                                                 c.paramInner, c.paramCount},
                       rownorm::RowGradientSink{rowSums.data()}, l);
      for (size_t k = 0; k < rowSums.size(); ++k) out[static_cast<size_t>(2 * c.rows) + k] = static_cast<float>(rowSums[k]);
      emulateReduction(c.paramCount, n / c.paramCount, rownorm::paramGradientLayout(c.paramInner, c.paramCount),
                       rownorm::ParamGradientTerms{x.data(), dy.data(), mean, invStd, c.rowLength, c.paramInner,
                                                   c.paramCount},
                       rownorm::ParamGradientSink{dbeta, dgamma}, l);
      return out;
    };
    LAUNCH_INDEPENDENT(got, run, c.name);
    // Plain loops, in double, from the emulated mean and invStd (checked first).
    Floats want(got.size(), 0.0f);
    std::vector<double> magnitude(got.size(), 0.0);
    const float *mean = got.data(), *invStd = mean + c.rows;
    std::vector<double> a(static_cast<size_t>(c.rows)), b(a.size()), sb(static_cast<size_t>(c.paramCount)), sg(sb.size());
    for (int64_t r = 0; r < c.rows; ++r) {
      double s = 0.0, q = 0.0;
      for (int64_t j = 0; j < c.rowLength; ++j) s += x[r * c.rowLength + j];
      const double m = s / static_cast<double>(c.rowLength);
      for (int64_t j = 0; j < c.rowLength; ++j) q += (x[r * c.rowLength + j] - m) * (x[r * c.rowLength + j] - m);
      want[r] = static_cast<float>(m);
      want[c.rows + r] = rownorm::inverseStd(q, c.rowLength, 1e-5f);
      magnitude[r] = 3.0;
      for (int64_t j = 0; j < c.rowLength; ++j) {
        const int64_t i = r * c.rowLength + j, p = rownorm::paramOf(i, c.paramInner, c.paramCount);
        const double g = static_cast<double>(dy[i]) * gamma[p], xhat = rownorm::normalized(x[i], mean[r], invStd[r]);
        a[r] += g;
        b[r] += g * xhat;
        sb[p] += dy[i];
        sg[p] += static_cast<double>(dy[i]) * xhat;
        magnitude[2 * c.rows + 2 * r] += std::fabs(g);
        magnitude[2 * c.rows + 2 * r + 1] += std::fabs(g * xhat);
        magnitude[4 * c.rows + p] += std::fabs(dy[i]);
        magnitude[4 * c.rows + c.paramCount + p] += std::fabs(dy[i] * xhat);
      }
      want[2 * c.rows + 2 * r] = static_cast<float>(a[r]);
      want[2 * c.rows + 2 * r + 1] = static_cast<float>(b[r]);
    }
    for (int64_t p = 0; p < c.paramCount; ++p) {
      want[4 * c.rows + p] = static_cast<float>(sb[p]);
      want[4 * c.rows + c.paramCount + p] = static_cast<float>(sg[p]);
    }
    // invStd: 1/sqrt of a variance whose sum may differ in its last bits: a float ulp or two.
    for (int64_t r = 0; r < c.rows; ++r) magnitude[c.rows + r] = 2e4 * std::fabs(want[c.rows + r]);
    checkClose(got, want, magnitude, c.name);
  }
}

}  // namespace

QTEST_GUILESS_MAIN(TestCudaReductionBodies)
#include "tst_cuda_reduction_bodies.moc"
