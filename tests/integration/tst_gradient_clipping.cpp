// optimizer.clip_gradient_norm end to end (Note [Gradient clipping]): in reproducible mode the
// clipped run gives the same parameters_sha256 on cpu:0 and on cpu:0,cpu:1 (the norm is the
// all-reduced gradient's, summed in a fixed order), and other parameters than the unclipped run;
// a clip that never triggers gives the unclipped run's parameters bit for bit;
// and a negative value is refused naming its path.
#include <QTemporaryDir>
#include <QtTest>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith::test;

class GradientClippingTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  QString project(const QString& name, double clip) {
    Json p = smallFashionMlp();
    p["config"]["deterministic"] = true;
    p["config"]["max_epoch"] = 1;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    if (clip != 0) p["optimizer"]["clip_gradient_norm"] = clip;
    return QString::fromStdString(saveProject(m_dir, name.toStdString(), p));
  }

  std::string trainedHash(const QString& project, const QString& devices) {
    const QString runDir = m_dir.filePath(QFileInfo(project).baseName() + "-" + QString(devices).replace(',', '_'));
    const CliRun run = runCli({"train", project, "--devices", devices, "--events", "-", "--run-dir", runDir,
                               "--train-samples", "1024", "--validation-samples", "128"});
    if (run.exitCode != 0) qWarning("%s", run.stderrText.constData());
    const Json finished = run.last("finished");
    if (finished.value("status", "") != "completed") {
      qWarning("%s", finished.dump().c_str());
      return {};
    }
    return finished.value("parameters_sha256", "");
  }

 private slots:
  void reproducibleOnOneAndTwoWorkers() {
    const QString clipped = project("clipped", 0.05);
    const std::string one = trainedHash(clipped, "cpu:0");
    QVERIFY(!one.empty());
    QCOMPARE(trainedHash(clipped, "cpu:0,cpu:1"), one);
    const std::string unclipped = trainedHash(project("unclipped", 0), "cpu:0");
    QVERIFY(!unclipped.empty());
    QVERIFY2(unclipped != one, "a clip at 0.05 changed nothing: it did not clip");
    QCOMPARE(trainedHash(project("never", 1e12), "cpu:0"), unclipped);
  }

  // The plan says so, for people and in its JSON (the `started` event carries the same keys).
  void planSaysSo() {
    const CliRun text = runCli({"train", project("plan-text", 0.5), "--dry-run"});
    QVERIFY2(text.exitCode == 0, text.stderrText.constData());
    QVERIFY2(text.stdoutText.contains("Gradient clipping:    the gradients' global norm at most 0.5"),
             text.stdoutText.constData());
    const CliRun json = runCli({"train", project("plan-json", 0.5), "--dry-run", "--json"});
    QCOMPARE(Json::parse(json.stdoutText.toStdString()).value("clip_gradient_norm", 0.0), 0.5);
    const CliRun off = runCli({"train", project("plan-off", 0), "--dry-run", "--json"});
    QVERIFY(!Json::parse(off.stdoutText.toStdString()).contains("clip_gradient_norm"));
  }

  void negativeSettingIsRefused() {
    Json p = smallFashionMlp();
    p["optimizer"]["clip_gradient_norm"] = -1;
    const QString bad = QString::fromStdString(saveProject(m_dir, "negative", p));
    const CliRun run = runCli({"validate", bad});
    QVERIFY(run.exitCode != 0);
    const QString out = QString::fromUtf8(run.stdoutText + run.stderrText);
    QVERIFY2(out.contains("optimizer.clip_gradient_norm") && out.contains("expected a number >= 0, got -1"), qPrintable(out));
  }
};

QTEST_GUILESS_MAIN(GradientClippingTest)
#include "tst_gradient_clipping.moc"
