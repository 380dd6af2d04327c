// Each setting's importance (engine/study/setting_importance.h, Note [Setting importance]): an
// error that depends on one setting only gives that setting nearly all of the share, whether the
// dependence is U-shaped (a learning rate) or a choice (a solver); the settings it does not
// depend on read about 0; too few trials, or errors that do not vary, give 0 everywhere; failed
// trials (no error) are left out; the trials of the log (a damaged line named) read back.
// netsmith-test-labels: asan
#include <QtTest>

#include <cmath>

#include "engine/core/error.h"
#include "engine/study/samplers.h"
#include "engine/study/setting_importance.h"
#include "engine/study/study_folder.h"

using namespace netsmith;
using namespace netsmith::study;

namespace {

std::vector<SearchParameter> threeSettings() {
  return {parseRangeOption("optimizer.alpha=1e-5..1e-1:log"), parseRangeOption("config.batch_size=16..256:int"),
          parseChoiceOption("optimizer.solver=Adam,Sgd,Momentum")};
}

// 120 random trials of the three settings, the error given by `objective`.
std::vector<Observation> trialsOf(const std::function<double(const TrialValues&)>& objective) {
  const auto parameters = threeSettings();
  const auto sampler = makeSampler(SearchKind::Random, parameters, 7);
  std::vector<Observation> out;
  for (int t = 0; t < 120; ++t) {
    TrialValues v = sampler->suggest(t, {});
    out.push_back({v, objective(v)});
  }
  return out;
}

}  // namespace

class TestSettingImportance : public QObject {
  Q_OBJECT
 private slots:
  void aUShapedLearningRateTakesTheShare() {
    // Best at alpha 1e-3, worse both ways: a rank correlation would see little of it.
    const auto trials = trialsOf([](const TrialValues& v) {
      const double d = std::log10(v[0].get<double>()) + 3;
      return 0.1 + 0.05 * d * d;
    });
    const auto importance = settingImportance(threeSettings(), trials);
    QCOMPARE(importance.size(), size_t{3});
    QCOMPARE(importance[0].name, std::string("alpha"));
    QCOMPARE(importance[2].name, std::string("solver"));
    QVERIFY2(importance[0].share > 0.9, qPrintable(QString::number(importance[0].share)));
    QVERIFY2(importance[0].explained > 0.6, qPrintable(QString::number(importance[0].explained)));
    QVERIFY2(importance[1].share < 0.05 && importance[2].share < 0.05,
             qPrintable(QString("%1 %2").arg(importance[1].share).arg(importance[2].share)));
    QCOMPARE(importance[0].share + importance[1].share + importance[2].share, 1.0);
  }

  void aChoiceTakesTheShare() {
    const auto trials = trialsOf([](const TrialValues& v) { return v[2] == "Adam" ? 0.1 : v[2] == "Sgd" ? 0.3 : 0.2; });
    const auto importance = settingImportance(threeSettings(), trials);
    QCOMPARE(importance[2].explained, 1.0);  // the solver's means are the errors themselves
    // The others explain only what 120 draws happen to line up with the solver.
    QVERIFY2(importance[0].explained < 0.1 && importance[1].explained < 0.1,
             qPrintable(QString("%1 %2").arg(importance[0].explained).arg(importance[1].explained)));
    QVERIFY2(importance[2].share > 0.8, qPrintable(QString::number(importance[2].share)));
  }

  void twoSettingsShareByTheirEffect() {
    // Batch size moves the error four times as much as the solver does (in variance, 16 times).
    const auto trials = trialsOf([](const TrialValues& v) {
      const double b = (v[1].get<double>() - 136) / 120;  // [-1, 1]
      return 0.2 + 0.08 * b + (v[2] == "Adam" ? -0.02 : 0.02);
    });
    const auto importance = settingImportance(threeSettings(), trials);
    QVERIFY2(importance[1].share > importance[2].share && importance[2].share > importance[0].share,
             qPrintable(QString("%1 %2 %3").arg(importance[0].share).arg(importance[1].share).arg(importance[2].share)));
  }

  void aGridOfNumbersIsBinnedNotOneGroupPerValue() {
    // Four learning rates, one trial each (a grid): as four groups they would "explain" all.
    const std::vector<SearchParameter> grid{parseChoiceOption("optimizer.lr=0.0001,0.001,0.01,0.1")};
    const std::vector<Observation> trials{{{0.0001}, 0.537}, {{0.001}, 0.329}, {{0.01}, 0.209}, {{0.1}, 0.231}};
    const auto importance = settingImportance(grid, trials);
    // Two bins, {1e-4, 1e-3} and {1e-2, 1e-1}: means 0.433 and 0.22 (worked by hand: ε² 0.51).
    QVERIFY2(std::abs(importance[0].explained - 0.512) < 0.01, qPrintable(QString::number(importance[0].explained)));
    QCOMPARE(importance[0].share, 1.0);
    // Words, one trial each: nothing to say.
    const std::vector<SearchParameter> words{parseChoiceOption("optimizer.solver=Adam,Sgd,Momentum,AdamW")};
    const std::vector<Observation> once{{{"Adam"}, 0.5}, {{"Sgd"}, 0.3}, {{"Momentum"}, 0.2}, {{"AdamW"}, 0.25}};
    QCOMPARE(settingImportance(words, once)[0].explained, 0.0);
  }

  void tooFewOrFlatTrialsGiveZero() {
    auto trials = trialsOf([](const TrialValues& v) { return v[0].get<double>(); });
    // Failed trials have no error and are left out: three scored trials are too few.
    for (size_t i = 3; i < trials.size(); ++i) trials[i].objective.reset();
    for (const auto& s : settingImportance(threeSettings(), trials)) QCOMPARE(s.share, 0.0);
    const auto flat = trialsOf([](const TrialValues&) { return 0.25; });
    for (const auto& s : settingImportance(threeSettings(), flat)) {
      QCOMPARE(s.explained, 0.0);
      QCOMPARE(s.share, 0.0);
    }
  }

  void theLogReadsLineByLine() {
    std::vector<TrialRecord> trials;
    double seconds = 0;
    applyLogLine(trials,
                 R"({"event":"trial","trial":0,"values":[0.01],"label":"alpha=0.01","project":"p","source_project":"s","run":"r","at":0})",
                 "trials.jsonl:1", 1, seconds);
    applyLogLine(trials, R"({"event":"epoch","trial":0,"epoch":1,"validation_error":0.2,"at":3.5})", "trials.jsonl:2", 1, seconds);
    applyLogLine(trials, R"({"event":"stopped_early","trial":0,"epoch":1,"reason":"worse than the rung","at":4})",
                 "trials.jsonl:3", 1, seconds);
    QCOMPARE(trials.size(), size_t{1});
    QCOMPARE(trials[0].epochs.size(), size_t{1});
    QCOMPARE(*trials[0].stoppedEarly, std::string("worse than the rung"));
    QCOMPARE(seconds, 4.0);
    QVERIFY_THROWS_EXCEPTION(Error, applyLogLine(trials, "{\"event\":", "trials.jsonl:4", 1, seconds));
    try {
      applyLogLine(trials, R"({"event":"epoch","trial":5,"epoch":1,"validation_error":0.2})", "trials.jsonl:5", 1, seconds);
      QFAIL("a trial never suggested was accepted");
    } catch (const Error& e) {
      QCOMPARE(std::string(e.what()), std::string("trials.jsonl:5: trial 6 was never suggested"));
    }
  }
};

QTEST_MAIN(TestSettingImportance)
#include "tst_setting_importance.moc"
