// Studies on two simulated GPUs (Note [Studies], Note [Simulated GPUs]): a random and a Bayesian
// search of the small MLP's learning rate, one trial per GPU at a time in one process, weak
// trials stopped early and marked; a study killed with SIGKILL resumes with the same trials.
#include <QProcess>
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

namespace {

const QStringList kOnTwoGpus{"--range", "optimizer.lr=1e-4..3:log", "--trials", "12", "--seed", "2", "--devices",
                             "cuda:0,cuda:1", "--max-epoch", "3", "--train-samples", "768", "--validation-samples", "256"};

size_t trialsLogged(const fs::path& runs) {
  if (!fs::exists(runs)) return 0;
  for (const auto& e : fs::directory_iterator(runs)) {
    if (!e.path().filename().string().ends_with("-sweep")) continue;
    std::ifstream in(e.path() / "trials.jsonl");
    size_t n = 0;
    bool epoch = false;
    std::string line;
    while (std::getline(in, line)) {
      n += line.find("\"event\":\"trial\"") != std::string::npos;
      epoch = epoch || line.find("\"event\":\"epoch\"") != std::string::npos;
    }
    return epoch ? n : 0;
  }
  return 0;
}

}  // namespace

class SimStudyTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void randomAndBayesianStudiesOnTwoGpus() {
    for (const char* search : {"random", "bayes"}) {
      const std::string project = saveProject(m_dir, search, smallFashionMlp());
      const CliRun run = runCli(QStringList{"sweep", QString::fromStdString(project), "--search", search} + kOnTwoGpus +
                                QStringList{"--json"});
      QVERIFY2(run.exitCode == 0 || run.exitCode == 1, run.stderrText.constData());  // 1: a trial diverged
      const Json summary = Json::parse(run.stdoutText.toStdString());
      QCOMPARE(summary.size(), size_t{12});
      int early = 0, completed = 0;
      std::set<std::string> devices;
      for (const Json& row : summary) {
        devices.insert(row["device"].get<std::string>());
        early += row["status"] == "stopped_early";
        completed += row["status"] == "completed";
        if (row["status"] == "stopped_early") QVERIFY(!row["stopped_early"].get<std::string>().empty());
      }
      QVERIFY2(early >= 2 && completed >= 1, qPrintable(QString("%1: %2 stopped early, %3 completed").arg(search).arg(early).arg(completed)));
      QCOMPARE(devices, (std::set<std::string>{"cuda:0", "cuda:1"}));
    }
  }

  void killedStudyResumesOnTwoGpus() {
    const std::string project = saveProject(m_dir, "killed", smallFashionMlp());
    QProcess p;
    p.setProgram(cliPath());
    p.setArguments(QStringList{"sweep", QString::fromStdString(project), "--search", "bayes"} + kOnTwoGpus);
    p.start();
    QVERIFY(p.waitForStarted());
    const fs::path runs = fs::path(project).parent_path() / "killed.runs";
    for (int i = 0; i < 1200 && p.state() != QProcess::NotRunning && trialsLogged(runs) < 4; ++i) p.waitForFinished(100);
    QVERIFY2(p.state() != QProcess::NotRunning, "the study ended before it could be killed");
    p.kill();
    p.waitForFinished();
    const fs::path folder = onlyStudyFolder(runs);
    const std::vector<Json> before = logLines(folder, "trial");
    const CliRun resumed = runCli({"sweep", "--resume", QString::fromStdString(folder.string()), "--json"});
    QVERIFY2(resumed.exitCode == 0 || resumed.exitCode == 1, resumed.stderrText.constData());
    const Json summary = Json::parse(resumed.stdoutText.toStdString());
    QCOMPARE(summary.size(), size_t{12});
    for (size_t i = 0; i < before.size(); ++i) QCOMPARE(summary[i]["label"], before[i]["label"]);
    for (const Json& row : summary) QVERIFY2(row["status"] != "not run", row.dump().c_str());
  }
};

QTEST_GUILESS_MAIN(SimStudyTest)
#include "tst_sim_study.moc"
