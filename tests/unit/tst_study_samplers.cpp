// The study's search space, samplers and stopping rules (engine/study): parsing and its errors,
// the unit mapping of ranges, seeded draws that depend only on the seed and the trial, a grid's
// order, TPE drawing where the good trials lie (it beats random draws on a known objective), and
// ASHA's rungs and the median rule.
// netsmith-test-labels: asan
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/core/error.h"
#include "engine/study/samplers.h"
#include "engine/study/search_space.h"
#include "engine/study/tpe_sampler.h"
#include "engine/study/trial_stopping.h"

using namespace netsmith;
using namespace netsmith::study;

namespace {

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// The median distance to the optimum of `trials` suggestions on a 1-D objective, each trial told
// the outcomes of all before it (as a study with one device).
double medianDistance(const Sampler& sampler, const SearchParameter& p, double optimum, int trials) {
  std::vector<Observation> observed;
  std::vector<double> distances;
  for (int t = 0; t < trials; ++t) {
    const TrialValues v = sampler.suggest(t, observed);
    const double d = std::abs(std::log10(v[0].get<double>()) - std::log10(optimum));
    distances.push_back(d);
    observed.push_back({v, d * d});
  }
  std::sort(distances.begin(), distances.end());
  return distances[distances.size() / 2];
}

}  // namespace

class StudySamplersTest : public QObject {
  Q_OBJECT

 private slots:
  void parsesRangesAndChoices() {
    const SearchParameter r = parseRangeOption("optimizer.alpha=1e-5..1e-1:log");
    QVERIFY(r.kind == SearchParameter::Kind::Real && r.log);
    QCOMPARE(r.low, 1e-5);
    QCOMPARE(r.high, 1e-1);
    QCOMPARE(r.name(), std::string("alpha"));
    const SearchParameter i = parseRangeOption("network.conv1.outmaps=8..64:int");
    QVERIFY(i.kind == SearchParameter::Kind::Integer && !i.log);
    QCOMPARE(i.name(), std::string("conv1.outmaps"));
    const SearchParameter c = parseChoiceOption("optimizer.solver=Adam,Momentum");
    QCOMPARE(c.choices.size(), size_t{2});
    QCOMPARE(c.choices[0], Json("Adam"));
    QCOMPARE(parseChoiceOption("config.batch_size=32,64").choices[1], Json(64));
    // Round trip through study.json's form.
    const SearchParameter back = SearchParameter::fromJson(r.toJson(), "test");
    QCOMPARE(back.toJson(), r.toJson());
  }

  void refusesBadSpecs() {
    QVERIFY(errorOf([] { parseRangeOption("optimizer.alpha=0..1:log"); }).find("above 0") != std::string::npos);
    QVERIFY(errorOf([] { parseRangeOption("optimizer.alpha=1..0.1"); }).find("below the high end") != std::string::npos);
    QVERIFY(errorOf([] { parseRangeOption("optimizer.alpha=a..b"); }).find("not a number") != std::string::npos);
    QVERIFY(errorOf([] { parseRangeOption("optimizer.alpha=1..2:cube"); }).find(":cube") != std::string::npos);
    QVERIFY(errorOf([] { parseRangeOption("x=1.5..3:int"); }).find("whole") != std::string::npos);
    QVERIFY(errorOf([] { parseChoiceOption("optimizer.alpha="); }).find("--set") != std::string::npos);
    QVERIFY(errorOf([] { parseChoiceOption("k=1,,2"); }).find("empty value") != std::string::npos);
    QVERIFY(errorOf([] { SearchParameter::fromJson({{"path", "a"}, {"kind", "cube"}}, "study.json: parameters[0]"); })
                .find("study.json: parameters[0].kind") != std::string::npos);
    QVERIFY(errorOf([] { makeSampler(SearchKind::Grid, {parseRangeOption("a.b=1..2")}, 1); }).find("grid") !=
            std::string::npos);
  }

  void integersGetEqualShares() {
    for (bool log : {false, true}) {
      SearchParameter p = parseRangeOption(log ? "a.b=1..8:int:log" : "a.b=1..8:int");
      std::set<int64_t> seen;
      for (int k = 0; k <= 1000; ++k) {
        const Json v = p.fromUnit(k / 1000.0);
        QVERIFY(v.is_number_integer());
        seen.insert(v.get<int64_t>());
        // Every value maps back into its own share.
        QCOMPARE(p.fromUnit(p.toUnit(v.get<double>())), v);
      }
      QCOMPARE(seen, (std::set<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
    }
    const SearchParameter linear = parseRangeOption("a.b=0..10:int");
    int zeros = 0, tens = 0;
    for (int k = 0; k < 11000; ++k) {
      const int64_t v = linear.fromUnit((k + 0.5) / 11000.0).get<int64_t>();
      zeros += v == 0;
      tens += v == 10;
    }
    QCOMPARE(zeros, 1000);  // the ends get a whole share, not half
    QCOMPARE(tens, 1000);
  }

  void randomDrawsDependOnSeedAndTrialOnly() {
    const std::vector<SearchParameter> ps{parseRangeOption("o.alpha=1e-5..1:log"), parseChoiceOption("o.solver=A,B,C")};
    const auto a = makeSampler(SearchKind::Random, ps, 7), b = makeSampler(SearchKind::Random, ps, 7),
               c = makeSampler(SearchKind::Random, ps, 8);
    std::vector<Observation> someOutcomes{{{0.1, "A"}, 0.5}};
    std::set<double> alphas;
    for (int t = 0; t < 20; ++t) {
      const TrialValues v = a->suggest(t, {});
      QCOMPARE(b->suggest(t, someOutcomes), v);  // outcomes do not move random draws
      QVERIFY(c->suggest(t, {}) != v);
      QVERIFY(v[0].get<double>() >= 1e-5 && v[0].get<double>() <= 1);
      alphas.insert(v[0].get<double>());
    }
    QCOMPARE(alphas.size(), size_t{20});
  }

  void gridRunsEveryCombinationFirstAxisSlowest() {
    const auto g = makeSampler(SearchKind::Grid, {parseChoiceOption("a.x=1,2"), parseChoiceOption("a.y=p,q,r")}, 1);
    QCOMPARE(*g->size(), int64_t{6});
    QCOMPARE(g->suggest(0, {}), (TrialValues{1, "p"}));
    QCOMPARE(g->suggest(2, {}), (TrialValues{1, "r"}));
    QCOMPARE(g->suggest(3, {}), (TrialValues{2, "p"}));
    QCOMPARE(g->suggest(5, {}), (TrialValues{2, "r"}));
  }

  void tpeStartsAsRandomThenFindsTheOptimum() {
    const SearchParameter p = parseRangeOption("o.alpha=1e-6..10:log");
    const auto tpe = makeSampler(SearchKind::Bayesian, {p}, 3), random = makeSampler(SearchKind::Random, {p}, 3);
    for (int t = 0; t < static_cast<int>(TpeSampler::kStartupTrials); ++t) QCOMPARE(tpe->suggest(t, {}), random->suggest(t, {}));
    // On several seeds, 20 trials each: TPE's median distance to the optimum (in decades) is
    // well below random's. Without the good/bad split (l/g scoring) the two are alike.
    int better = 0;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const double dTpe = medianDistance(*makeSampler(SearchKind::Bayesian, {p}, seed), p, 3e-3, 20);
      const double dRandom = medianDistance(*makeSampler(SearchKind::Random, {p}, seed), p, 3e-3, 20);
      better += dTpe < 0.6 * dRandom;
    }
    QVERIFY2(better >= 4, qPrintable(QString("TPE was clearly better on %1 of 5 seeds").arg(better)));
  }

  void tpePrefersTheGoodChoiceAndIsSeeded() {
    const SearchParameter p = parseChoiceOption("o.solver=A,B,C,D");
    std::vector<Observation> observed;
    for (int k = 0; k < 12; ++k) {
      const std::string c = std::string(1, static_cast<char>('A' + k % 4));
      observed.push_back({{c}, c == "C" ? 0.1 : 0.5 + 0.01 * k});
    }
    const auto tpe = makeSampler(SearchKind::Bayesian, {p}, 5);
    int picksC = 0;
    for (int t = 12; t < 32; ++t) {
      const TrialValues v = tpe->suggest(t, observed);
      QCOMPARE(makeSampler(SearchKind::Bayesian, {p}, 5)->suggest(t, observed), v);
      picksC += v[0] == Json("C");
    }
    QVERIFY2(picksC >= 15, qPrintable(QString("C picked %1 of 20 times").arg(picksC)));
    // A failed trial counts among the bad ones.
    std::vector<Observation> failed{{{"A"}, std::nullopt}, {{"A"}, std::nullopt}, {{"B"}, 0.2}, {{"A"}, std::nullopt}};
    int picksB = 0;
    for (int t = 4; t < 24; ++t) picksB += tpe->suggest(t, failed)[0] == Json("B");
    QVERIFY2(picksB >= 10, qPrintable(QString("B picked %1 of 20 times").arg(picksB)));
  }

  void ashaKeepsTheBestThirdAtEachRung() {
    TrialStopper asha({StopRule::Asha, 1, 3, 10});
    QCOMPARE(asha.rungs(), (std::vector<int64_t>{1, 3, 9}));
    QVERIFY(!asha.report(0, 1, 0.30));     // nothing to beat yet
    QVERIFY(!asha.report(0, 2, 0.90));     // not a rung
    QVERIFY(asha.report(1, 1, 0.50));      // [0.30, 0.50]: cut-off at 1/3 is 0.367
    QVERIFY(!asha.report(2, 1, 0.20));     // the best so far
    const auto reason = asha.report(3, 1, 0.31);  // [0.2, 0.3, 0.31, 0.5]: cut-off 0.3
    QVERIFY(reason);
    QVERIFY2(reason->find("epoch 1") != std::string::npos && reason->find("1/3") != std::string::npos, reason->c_str());
    QVERIFY(!asha.report(0, 3, 0.25));     // a new rung starts empty
    QVERIFY(!asha.report(0, 10, 0.99));    // the last epoch is never a rung
    TrialStopper off({StopRule::Off, 1, 3, 10});
    QVERIFY(!off.report(0, 1, 0.1) && !off.report(1, 1, 0.9));
  }

  void medianRuleWaitsForPeers() {
    TrialStopper median({StopRule::Median, 2, 3, 10});
    for (int t = 0; t < 3; ++t) {
      QVERIFY(!median.report(t, 1, 0.4 + 0.1 * t));
      QVERIFY(!median.report(t, 2, 0.3 + 0.1 * t));  // fewer than 3 peers at epoch 2 so far
    }
    QVERIFY(!median.report(3, 1, 0.9));  // before the grace epoch
    QVERIFY(median.report(3, 2, 0.8));   // best 0.8 > median of 0.3, 0.4, 0.5
    QVERIFY(!median.report(4, 2, 0.35)); // better than the median 0.45 of 0.3, 0.4, 0.5, 0.8
  }

  void quantileInterpolates() {
    QCOMPARE(quantile({3, 1, 2}, 0.5), 2.0);
    QCOMPARE(quantile({1, 2}, 0.25), 1.25);
    QCOMPARE(quantile({5}, 0.9), 5.0);
  }
};

QTEST_GUILESS_MAIN(StudySamplersTest)
#include "tst_study_samplers.moc"
