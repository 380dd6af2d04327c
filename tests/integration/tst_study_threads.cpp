// netsmith-test-labels: tsan
// Note [Studies] under ThreadSanitizer (the test command's TSan build runs it): a random study of
// the small MLP's learning rate on two CPU workers trains two trials at once, each on its own
// thread, while the rule stops weak ones early (the trials' epoch callbacks and the runner's
// queue share the study's lock), and a time budget ends a second study with trials running (the
// watchdog thread stops them). Each study's summary agrees with its log.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>

#include "support/cli_runner.h"
#include "support/study_folder_check.h"
#include "support/train_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

class StudyThreadsTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  static Json summaryOf(const fs::path& runs) {
    return Json::parse(std::ifstream(onlyStudyFolder(runs) / "summary.json"), nullptr, false);
  }

 private slots:
  void twoTrialsAtOnceWithEarlyStopping() {
    QVERIFY(m_dir.isValid());
    const std::string project = saveProject(m_dir, "threads", smallFashionMlp());
    // A wide range: the largest rates diverge or lag, so the rule has trials to stop.
    const CliRun run = runCli({"sweep", QString::fromStdString(project), "--search", "random", "--range",
                               "optimizer.lr=1e-6..3:log", "--trials", "10", "--seed", "3", "--devices", "cpu:0,cpu:1",
                               "--max-epoch", "3", "--train-samples", "256", "--validation-samples", "256", "--json"},
                              900000);
    QVERIFY2(run.exitCode == 0 || run.exitCode == 1, run.stderrText.constData());  // 1: a trial failed (diverged)
    const fs::path runs = fs::path(m_dir.path().toStdString()) / "threads.runs";
    const Json summary = summaryOf(runs);
    QCOMPARE(summary.size(), size_t{10});
    int early = 0;
    std::set<std::string> devices;
    for (const Json& row : summary) {
      QVERIFY2(row["status"] == "completed" || row["status"] == "stopped_early" || row["status"] == "failed",
               row.dump().c_str());
      early += row["status"] == "stopped_early";
      devices.insert(row.value("device", ""));
    }
    QCOMPARE(devices, (std::set<std::string>{"cpu:0", "cpu:1"}));
    qInfo("%d of %zu trials stopped early", early, summary.size());
    QVERIFY2(early >= 1, summary.dump().c_str());
    QCOMPARE(static_cast<int>(logLines(onlyStudyFolder(runs), "stopped_early").size()), early);
    QCOMPARE(logLines(onlyStudyFolder(runs), "ended").size(), size_t{10});
  }

  void timeBudgetStopsRunningTrials() {
    const std::string project = saveProject(m_dir, "budget", smallFashionMlp());
    const CliRun run = runCli({"sweep", QString::fromStdString(project), "--search", "random", "--range",
                               "optimizer.lr=1e-4..1e-2:log", "--trials", "20", "--time-budget", "2s", "--devices",
                               "cpu:0,cpu:1", "--max-epoch", "50", "--train-samples", "1024", "--validation-samples", "256"},
                              900000);
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    QVERIFY2(run.stdoutText.contains("The time budget ran out"), run.stdoutText.constData());
    const Json summary = summaryOf(fs::path(m_dir.path().toStdString()) / "budget.runs");
    QVERIFY(summary.size() >= 1 && summary.size() < 20);
    for (const Json& row : summary) QVERIFY2(row["status"] != "not run", row.dump().c_str());
  }
};

QTEST_GUILESS_MAIN(StudyThreadsTest)
#include "tst_study_threads.moc"
