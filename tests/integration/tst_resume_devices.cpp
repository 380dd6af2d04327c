// `netsmith-cli train --resume RUN --devices LIST` (issue 17, Note [Resume on other devices]): a
// stopped run continues on another set of CPU workers with the run's own logical batch and
// learning rate, says what changed (a line on the terminal, `device_change` in `started` and
// `resumed_from_checkpoint`, run.json's "device_changes"), and in reproducible mode ends with the
// parameters_sha256 of the run never stopped.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

Json readJson(const QString& path) {
  std::ifstream in(path.toStdString());
  return Json::parse(in);
}

std::vector<int64_t> batches(const Json& devices) {
  std::vector<int64_t> out;
  for (const Json& d : devices)
    if (!d.value("idle", false)) out.push_back(d.value("batch", int64_t{0}));
  return out;
}

}  // namespace

class ResumeDevicesTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  // The MLP sample on 1,280 training images (20 iterations of 64 per epoch), 2 epochs.
  QStringList train(const QString& project, const QString& devices, const QString& runDir) const {
    return {"train", project, "--devices", devices, "--run-dir", runDir, "--max-epoch", "2", "--train-samples", "1280",
            "--validation-samples", "256", "--events", "-"};
  }

  // Trains until the 6th iteration's event, then asks for a stop (a checkpoint inside epoch 1).
  CliRun trainAndStop(const QStringList& args) {
    bool sent = false;
    return runCli(args, 600000, [&](const Json& e, QProcess& p) {
      if (!sent && e.value("event", "") == "iteration" && e.value("global_iteration", 0) >= 6) {
        p.write("stop\n");
        sent = true;
      }
    });
  }

  QString project(const std::string& name, const Json& p) { return QString::fromStdString(saveProject(m_dir, name, p)); }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // Fast mode, lr_policy scale_lr: one worker's run (logical batch 64) resumed on two keeps 64,
  // 32 per worker, and the learning rate, although scale_lr on two workers would double both.
  void resumeOnMoreDevicesKeepsTheLogicalBatch() {
    const QString path = project("fast", sampleProject("fashion_mnist_mlp"));
    const QString dir = m_dir.filePath("fast-run");
    const CliRun stopped = trainAndStop(train(path, "cpu:0", dir));
    QCOMPARE(stopped.exitCode, 3);
    const Json first = stopped.last("started");
    QCOMPARE(first.value("logical_batch", 0), 64);
    const double lr = first.value("effective_lr", 0.0);
    QVERIFY(!first.contains("device_change"));

    const CliRun resumed = runCli({"train", "--resume", dir, "--devices", "cpu:0,cpu:1", "--events", "-"});
    QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
    QCOMPARE(resumed.last("finished").value("status", ""), std::string("completed"));
    const Json started = resumed.last("started");
    QCOMPARE(started.value("logical_batch", 0), 64);
    QCOMPARE(started.value("logical_batch_kept", false), true);
    QCOMPARE(started.value("iterations_per_epoch", 0), 20);
    QCOMPARE(started.value("effective_lr", 0.0), lr);
    QCOMPARE(batches(started["devices"]), (std::vector<int64_t>{32, 32}));
    QVERIFY(started.value("resumed", false));
    const Json change = started["device_change"];
    QVERIFY2(change.is_object(), started.dump().c_str());
    QCOMPARE(change.value("message", ""),
             std::string("Resumed on cpu:0,cpu:1 (was cpu:0): per-device batch 32 (was 64), logical batch 64 unchanged, "
                         "learning rate ") + change["effective_lr"].dump() + " unchanged");
    QCOMPARE(change["logical_batch"].get<int>(), 64);
    QCOMPARE(change["previous_logical_batch"].get<int>(), 64);
    QCOMPARE(change["devices"].size(), size_t{2});
    QCOMPARE(change["previous_devices"][0]["id"].get<std::string>(), std::string("cpu:0"));
    QCOMPARE(change["previous_devices"][0]["batch"].get<int>(), 64);
    QCOMPARE(resumed.last("resumed_from_checkpoint")["device_change"], change);
    // Both epochs are in the curve: the run went on where it stopped.
    QCOMPARE(resumed.ofKind("epoch").size(), size_t{2});

    // run.json: the new devices (a later resume continues on them) and the change, with its position.
    const Json record = readJson(dir + "/run.json");
    QCOMPARE(record["devices"], Json({"cpu:0", "cpu:1"}));
    QCOMPARE(record["training"]["logical_batch"].get<int>(), 64);
    QCOMPARE(record["device_changes"].size(), size_t{1});
    QCOMPARE(record["device_changes"][0]["message"], change["message"]);
    QCOMPARE(record["device_changes"][0]["epoch"].get<int>(), 1);
    QVERIFY(record["device_changes"][0]["iteration"].get<int>() >= 6);
  }

  // The line on the terminal (the progress bar), and a logical batch that the devices do not
  // divide: shared as evenly as it goes, said so.
  void unevenShareAndTheTerminalLine() {
    const QString path = project("uneven", sampleProject("fashion_mnist_mlp"));
    const QString dir = m_dir.filePath("uneven-run");
    QCOMPARE(trainAndStop(train(path, "cpu:0", dir)).exitCode, 3);
    const QString events = m_dir.filePath("uneven-events.jsonl");
    const CliRun resumed = runCli({"train", "--resume", dir, "--devices", "cpu:0,cpu:1,cpu:2", "--events", events});
    QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
    QVERIFY2(resumed.stdoutText.contains("Resumed on cpu:0,cpu:1,cpu:2 (was cpu:0): per-device batch 22/21/21 (was 64), "
                                         "logical batch 64 unchanged"),
             resumed.stdoutText.constData());
    std::ifstream in(events.toStdString());
    Json started;
    for (std::string line; std::getline(in, line);) {
      const Json e = Json::parse(line);
      if (e.value("event", "") == "started") started = e;
    }
    QCOMPARE(batches(started["devices"]), (std::vector<int64_t>{22, 21, 21}));
    QCOMPARE(started.value("logical_batch", 0), 64);
  }

  // Reproducible mode: the resumed run's weights are the uninterrupted run's, bit for bit, on
  // another number of workers, both ways, under lr_policy scale_lr (whose logical batch and
  // learning rate would follow the workers in a new run).
  void reproducibleResumeOnOtherDevicesEqualsUninterrupted_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("after");
    QTest::newRow("1 -> 2 workers") << "cpu:0" << "cpu:0,cpu:1";
    QTest::newRow("2 -> 1 worker") << "cpu:0,cpu:1" << "cpu:1";
  }
  void reproducibleResumeOnOtherDevicesEqualsUninterrupted() {
    QFETCH(QString, before);
    QFETCH(QString, after);
    Json p = sampleProject("fashion_mnist_mlp");
    p["config"]["deterministic"] = true;
    p["parallel"]["lr_policy"] = "scale_lr";
    const QString tag = QString::number(before.count(',') + 1) + "-" + QString::number(after.count(',') + 1);
    const QString path = project(("repro-" + tag).toStdString(), p);
    const CliRun whole = runCli(train(path, before, m_dir.filePath("whole-" + tag)));
    QVERIFY2(whole.exitCode == 0, whole.stderrText.constData());
    const std::string expected = whole.last("finished").value("parameters_sha256", "");
    QCOMPARE(expected.size(), size_t{64});

    const QString dir = m_dir.filePath("moved-" + tag);
    QCOMPARE(trainAndStop(train(path, before, dir)).exitCode, 3);
    const CliRun resumed = runCli({"train", "--resume", dir, "--devices", after, "--events", "-"});
    QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
    const Json started = resumed.last("started");
    QCOMPARE(started.value("logical_batch", 0), whole.last("started").value("logical_batch", -1));
    QCOMPARE(started.value("effective_lr", 0.0), whole.last("started").value("effective_lr", -1.0));
    QVERIFY(started.value("identical_across_device_counts", false));
    QVERIFY(started["device_change"].is_object());
    QCOMPARE(resumed.last("finished").value("parameters_sha256", ""), expected);

    // Without the kept batch, scale_lr on the other number of workers would have trained another
    // logical batch: a new run there differs (the check above is not vacuous).
    const CliRun fresh = runCli(train(path, after, m_dir.filePath("fresh-" + tag)));
    QVERIFY2(fresh.exitCode == 0, fresh.stderrText.constData());
    QVERIFY(fresh.last("started").value("logical_batch", 0) != started.value("logical_batch", 0));
    QVERIFY(fresh.last("finished").value("parameters_sha256", "") != expected);
  }

  // A resume without --devices continues on the devices of the last resume (run.json "devices").
  void aLaterResumeKeepsTheNewDevices() {
    const QString path = project("later", sampleProject("fashion_mnist_mlp"));
    const QString dir = m_dir.filePath("later-run");
    QCOMPARE(trainAndStop(train(path, "cpu:0", dir)).exitCode, 3);
    bool sent = false;
    const CliRun moved = runCli({"train", "--resume", dir, "--devices", "cpu:0,cpu:1", "--events", "-"}, 600000,
                                [&](const Json& e, QProcess& p) {
                                  if (!sent && e.value("event", "") == "iteration" && e.value("global_iteration", 0) >= 12) {
                                    p.write("stop\n");
                                    sent = true;
                                  }
                                });
    QCOMPARE(moved.exitCode, 3);
    const CliRun again = runCli({"train", "--resume", dir, "--events", "-"});
    QVERIFY2(again.exitCode == 0, again.stderrText.constData());
    const Json started = again.last("started");
    QCOMPARE(batches(started["devices"]), (std::vector<int64_t>{32, 32}));
    QVERIFY(!started.contains("device_change"));  // the same devices as the session before
  }
};

QTEST_GUILESS_MAIN(ResumeDevicesTest)
#include "tst_resume_devices.moc"
