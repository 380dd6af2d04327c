// netsmith-cli lr-find (Note [Learning-rate range test]): the MLP sample's range test — rates
// growing geometrically, every iteration's loss, a suggestion where the loss falls, the curve
// kept in the run folder; an exploding rate ends the test early; bad options are refused.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;
namespace fs = std::filesystem;

class LrFindTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void suggestsARateWhereTheLossFalls() {
    const std::string project = saveProject(m_dir, "mlp", sampleProject("fashion_mnist_mlp"));
    const CliRun run = runCli({"lr-find", QString::fromStdString(project), "--min-lr", "1e-5", "--max-lr", "10",
                               "--iterations", "60", "--devices", "cpu:0", "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const Json result = Json::parse(run.stdoutText.toStdString());
    const Json& points = result["points"];
    QVERIFY2(points.size() >= 30 && points.size() <= 60, result.dump().c_str());
    for (size_t i = 0; i < points.size(); ++i) {
      QCOMPARE(points[i]["iteration"].get<int>(), int(i + 1));  // every iteration recorded
      const double expected = 1e-5 * std::pow(1e6, double(i) / 59);
      QVERIFY2(std::abs(points[i]["lr"].get<double>() / expected - 1) < 1e-9, points[i].dump().c_str());
    }
    const double suggested = result["suggested_lr"].get<double>();
    QVERIFY(suggested > 1e-5 && suggested < 10);
    // Where the suggestion lies the smoothed loss is already below where the test began.
    double atSuggestion = 0;
    for (const Json& p : points)
      if (p["lr"].get<double>() == suggested) atSuggestion = p["smoothed_loss"].get<double>();
    QVERIFY(atSuggestion > 0 && atSuggestion < points[0]["loss"].get<double>());
    std::ifstream in(fs::path(result["run"].get<std::string>()) / "lr_find.json");
    QCOMPARE(Json::parse(in), result);
    QVERIFY(fs::path(result["run"].get<std::string>()).filename().string().ends_with("-lr-find"));
  }

  void anExplodingRateEndsTheTestEarly() {
    const std::string project = saveProject(m_dir, "explode", sampleProject("fashion_mnist_mlp"));
    const CliRun run = runCli({"lr-find", QString::fromStdString(project), "--min-lr", "1e-4", "--max-lr", "1e6",
                               "--iterations", "200", "--devices", "cpu:0", "--json"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    const Json result = Json::parse(run.stdoutText.toStdString());
    QVERIFY2(result["points"].size() < 200, result["stopped_because"].dump().c_str());
    QVERIFY2(result["stopped_because"].get<std::string>().find("exploded") != std::string::npos,
             result["stopped_because"].dump().c_str());
    QVERIFY(result["suggested_lr"].get<double>() < 1e6);
  }

  void badOptionsAreRefused() {
    const QString project = QString::fromStdString(saveProject(m_dir, "bad", sampleProject("fashion_mnist_mlp")));
    for (const auto& [args, expected] : std::vector<std::pair<QStringList, QString>>{
             {{"--min-lr", "1", "--max-lr", "0.1"}, "must be below"},
             {{"--min-lr", "fast"}, "--min-lr"},
             {{"--iterations", "3"}, "at least 10"}}) {
      const CliRun run = runCli(QStringList{"lr-find", project} + args);
      QCOMPARE(run.exitCode, 2);
      QVERIFY2(run.stderrText.contains(expected.toUtf8()), run.stderrText.constData());
    }
  }
};

QTEST_GUILESS_MAIN(LrFindTest)
#include "tst_lr_find.moc"
