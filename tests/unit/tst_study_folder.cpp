// A study's folder (engine/study/study_folder.h): the log read back as it was written, a line torn
// by kill -9 dropped, a damaged line or study.json refused naming the file and line, one process
// at a time.
// netsmith-test-labels: asan
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/study/study_folder.h"

using namespace netsmith;
using namespace netsmith::study;
namespace fs = std::filesystem;

namespace {

StudyDefinition twoSettings() {
  StudyDefinition d;
  d.projectPath = "/p/lenet.nsproj";
  d.search = SearchKind::Random;
  d.parameters = {parseRangeOption("optimizer.alpha=1e-5..1:log"), parseChoiceOption("config.batch_size=32,64")};
  d.seed = 9;
  d.trialBudget = 12;
  d.timeBudgetSeconds = 60;
  d.stopping = {StopRule::Asha, 1, 3, 4};
  d.devices = {"cpu:0", "cpu:1"};
  d.maxEpoch = 4;
  d.trainSamples = 100;
  return d;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

void appendRaw(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::app) << text; }

}  // namespace

class StudyFolderTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  fs::path makeStudy() {
    StudyDefinition d = twoSettings();
    const fs::path runs = fs::path(m_dir.path().toStdString()) / QUuid::createUuid().toString(QUuid::Id128).toStdString();
    auto folder = StudyFolder::create(runs, d, "{}\n");
    TrialRecord a;
    a.index = 0;
    a.values = {0.001, 32};
    a.label = "alpha=0.001,batch_size=32";
    a.project = "/x/1.nsproj";
    a.sourceProject = d.projectPath;
    a.runDir = "/x/r1";
    folder->logTrial(a, 0.5);
    a.epochs.push_back({1, 0.4});
    folder->logEpoch(a, a.epochs.back(), 2.0);
    a.stoppedEarly = "behind its peers";
    folder->logStoppedEarly(a, 2.1);
    a.status = "stopped_early";
    a.devices = "cpu:0";
    a.seconds = 1.5;
    folder->logEnded(a, 2.2);
    TrialRecord b = a;
    b.index = 1;
    b.values = {0.01, 64};
    b.epochs.clear();
    b.stoppedEarly.reset();
    b.status.clear();
    folder->logTrial(b, 3.0);
    return folder->dir();
  }

 private slots:
  void theLogReadsBackAsWritten() {
    const fs::path dir = makeStudy();
    auto folder = StudyFolder::open(dir);
    const StudyDefinition& d = folder->definition();
    StudyDefinition expected = twoSettings();
    expected.stamp = d.stamp;
    QCOMPARE(d.toJson(), expected.toJson());
    QCOMPARE(d.parameters.size(), size_t{2});
    QCOMPARE(d.seed, uint64_t{9});
    QCOMPARE(folder->trials().size(), size_t{2});
    const TrialRecord& a = folder->trials()[0];
    QCOMPARE(a.values, (TrialValues{0.001, 32}));
    QCOMPARE(a.status, std::string("stopped_early"));
    QCOMPARE(*a.stoppedEarly, std::string("behind its peers"));
    QCOMPARE(*a.bestError(), 0.4);
    QCOMPARE(a.bestEpoch(), int64_t{1});
    QVERIFY(!folder->trials()[1].ended());
    QCOMPARE(folder->secondsUsed(), 3.0);
    QCOMPARE(folder->summary()[0]["status"], Json("stopped_early"));
    QCOMPARE(folder->summary()[1]["status"], Json("not run"));
  }

  void aTornLastLineNeverHappened() {
    const fs::path dir = makeStudy();
    appendRaw(dir / "trials.jsonl", "{\"event\":\"ended\",\"trial\":1,\"status\":\"comp");
    {
      auto folder = StudyFolder::open(dir);
      QVERIFY(!folder->trials()[1].ended());
      folder->logEnded(folder->trials()[1], 4.0);  // appends after the cut
    }
    auto again = StudyFolder::open(dir);
    QCOMPARE(again->trials()[1].status, std::string(""));  // logged with an empty status: still unfinished
  }

  void aDamagedLineIsNamed() {
    const fs::path dir = makeStudy();
    appendRaw(dir / "trials.jsonl", "not json\n{\"event\":\"epoch\",\"trial\":0,\"epoch\":2,\"validation_error\":0.3}\n");
    const std::string message = errorOf([&] { StudyFolder::open(dir); });
    QVERIFY2(message.find((dir / "trials.jsonl").string() + ":6") != std::string::npos, message.c_str());
    const fs::path other = makeStudy();
    appendRaw(other / "trials.jsonl", "{\"event\":\"epoch\",\"trial\":7,\"epoch\":2,\"validation_error\":0.3}\n");
    QVERIFY(errorOf([&] { StudyFolder::open(other); }).find("trial 8 was never suggested") != std::string::npos);
    const fs::path third = makeStudy();
    appendRaw(third / "trials.jsonl", "{\"event\":\"epoch\",\"trial\":0,\"epoch\":\"two\",\"validation_error\":0.3}\n");
    QVERIFY(errorOf([&] { StudyFolder::open(third); }).find("'epoch' has the wrong type") != std::string::npos);
  }

  void aDamagedDefinitionIsNamed() {
    const fs::path dir = makeStudy();
    std::ofstream(dir / "study.json") << "{\"format\": \"netsmith-study\", \"project\": 3}";
    const std::string message = errorOf([&] { StudyFolder::open(dir); });
    QVERIFY2(message.find((dir / "study.json").string()) != std::string::npos && message.find("project") != std::string::npos,
             message.c_str());
    std::ofstream(dir / "study.json") << "{";
    QVERIFY(errorOf([&] { StudyFolder::open(dir); }).find("not valid JSON") != std::string::npos);
    QVERIFY(errorOf([&] { StudyFolder::open(dir / "nowhere"); }).find("no such study folder") != std::string::npos);
    const fs::path plain = fs::path(m_dir.path().toStdString()) / "plain";
    fs::create_directories(plain);
    QVERIFY(errorOf([&] { StudyFolder::open(plain); }).find("not a study folder") != std::string::npos);
  }

  void oneProcessAtATime() {
    const fs::path dir = makeStudy();
    auto first = StudyFolder::open(dir);
    const std::string message = errorOf([&] { StudyFolder::open(dir); });
    QVERIFY2(message.find("in use") != std::string::npos, message.c_str());
  }
};

QTEST_GUILESS_MAIN(StudyFolderTest)
#include "tst_study_folder.moc"
