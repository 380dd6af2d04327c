// The events reader and the engine child process: chunks of any size, garbage, cut lines, crashes.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/run/engine_event.h"
#include "gui/run/engine_process.h"
#include "gui/run/event_stream_reader.h"

using namespace netsmith::gui;

namespace {

const QByteArray kStream =
    "{\"event\":\"started\",\"run\":\"/tmp/r\",\"devices\":[{\"id\":\"cpu:0\",\"name\":\"CPU\",\"threads\":2}],"
    "\"logical_batch\":128,\"iterations_per_epoch\":4,\"effective_lr\":0.002,\"max_epoch\":1}\n"
    "{\"event\":\"iteration\",\"epoch\":1,\"iteration\":2,\"loss\":0.5,\"samples_per_s\":1000,"
    "\"devices\":[{\"id\":\"cpu:0\",\"compute_ms\":3.5,\"sync_ms\":0.5,\"utilization\":0.9,\"memory_mb\":100}]}\r\n"
    "{\"event\":\"epoch\",\"epoch\":1,\"train_loss\":0.4,\"validation_loss\":null,\"validation_error\":0.1,"
    "\"scaling\":{\"samples_per_s\":900,\"communication_share\":0.1,\"speedup_estimate\":1.8}}\n"
    "{\"event\":\"finished\",\"status\":\"completed\",\"best_validation_error\":0.1}\n";

struct Collected {
  QList<EngineEvent> events;
  QList<QPair<QString, LogKind>> logs;
  void attach(EventStreamReader& r) {
    QObject::connect(&r, &EventStreamReader::eventReceived, [this](const EngineEvent& e) { events << e; });
    QObject::connect(&r, &EventStreamReader::logLine, [this](const QString& l, LogKind k) { logs << qMakePair(l, k); });
  }
};

void checkStreamEvents(const QList<EngineEvent>& events) {
  QCOMPARE(events.size(), 4);
  const auto& started = std::get<StartedEvent>(events[0]);
  QCOMPARE(started.run, QString("/tmp/r"));
  QCOMPARE(started.plan.logicalBatch, 128);
  QCOMPARE(started.plan.devices.size(), 1);
  QCOMPARE(started.plan.devices[0].threads, 2);
  const auto& it = std::get<IterationEvent>(events[1]);
  QCOMPARE(it.iteration, 2);
  QCOMPARE(it.devices.size(), 1);
  QCOMPARE(it.devices[0].computeMs, 3.5);
  QVERIFY(!hasValue(it.devices[0].waitMs));
  const auto& epoch = std::get<EpochEvent>(events[2]);
  QVERIFY(!hasValue(epoch.validationLoss));  // null
  QCOMPARE(epoch.validationError, 0.1);
  QVERIFY(epoch.scaling.has_value());
  QCOMPARE(epoch.scaling->speedupEstimate, 1.8);
  QCOMPARE(std::get<FinishedEvent>(events[3]).status, QString("completed"));
}

// A shell script as a stand-in engine.
QString script(QTemporaryDir& dir, const QByteArray& body) {
  const QString path = dir.filePath("engine.sh");
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write("#!/bin/sh\n" + body);
  f.close();
  f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
  return path;
}

}  // namespace

class TestEventStream : public QObject {
  Q_OBJECT
 private slots:
  // A GPU's sensors and the hidden all-reduce per device; the scaling verdict and each GPU's
  // summary at the end (docs/events.md).
  void gpuFiguresAndTheScalingVerdict() {
    const auto it = parseEngineEvent(
        "{\"event\":\"iteration\",\"epoch\":1,\"iteration\":3,\"devices\":[{\"id\":\"cuda:0\",\"compute_ms\":5,"
        "\"sync_ms\":2,\"overlap_ms\":1.5,\"wait_ms\":0.5,\"temperature_c\":61,\"power_w\":230.5},{\"id\":\"cpu:0\"}]}");
    QVERIFY(it.has_value());
    const auto& devices = std::get<IterationEvent>(*it).devices;
    QCOMPARE(devices[0].overlapMs, 1.5);
    QCOMPARE(devices[0].temperatureC, 61.0);
    QCOMPARE(devices[0].powerW, 230.5);
    QVERIFY(!hasValue(devices[1].temperatureC) && !hasValue(devices[1].powerW));
    const auto finished = parseEngineEvent(
        "{\"event\":\"finished\",\"status\":\"completed\",\"scaling_verdict\":{\"text\":\"2 GPUs: 1.80x\"},"
        "\"gpus\":[{\"id\":\"cuda:0\",\"max_temperature_c\":70.4,\"mean_power_w\":212},{\"id\":\"cuda:1\",\"max_temperature_c\":null}]}");
    QVERIFY(finished.has_value());
    const auto& f = std::get<FinishedEvent>(*finished);
    QCOMPARE(f.scalingVerdict, QString("2 GPUs: 1.80x"));
    QCOMPARE(f.gpuSummaries, (QStringList{QString::fromUtf8("cuda:0: peak 70 °C, mean power 212 W"), QString("cuda:1:")}));
  }

  void wholeStreamAtOnce() {
    EventStreamReader reader;
    Collected c;
    c.attach(reader);
    reader.feed(kStream);
    reader.finish();
    checkStreamEvents(c.events);
    QVERIFY(c.logs.isEmpty());
  }

  void byteByByte() {
    EventStreamReader reader;
    Collected c;
    c.attach(reader);
    for (char ch : kStream) reader.feed(QByteArray(1, ch));
    reader.finish();
    checkStreamEvents(c.events);
    QVERIFY(c.logs.isEmpty());
  }

  void irregularChunks() {
    EventStreamReader reader;
    Collected c;
    c.attach(reader);
    for (qsizetype at = 0, step = 1; at < kStream.size(); at += step, step = step * 3 % 17 + 1)
      reader.feed(kStream.mid(at, step));
    reader.finish();
    checkStreamEvents(c.events);
  }

  void garbageLinesAreLoggedNotFatal() {
    EventStreamReader reader;
    Collected c;
    c.attach(reader);
    reader.feed("oneDNN verbose: something\n{not json\n[1,2,3]\n{\"no_event\":1}\n\x01\x02\xff\n\n");
    // An event with a field of the wrong type is not shown as figures: the log names the field.
    reader.feed("{\"event\":\"epoch\",\"epoch\":\"three\",\"train_loss\":[1]}\n");
    reader.feed("{\"event\":\"epoch\"}\n");  // missing fields take their defaults
    reader.feed("{\"event\":\"something_new\",\"x\":1}\n");
    reader.feed(kStream);
    reader.finish();
    QCOMPARE(c.events.size(), 6);
    const auto& bare = std::get<EpochEvent>(c.events[0]);
    QCOMPARE(bare.epoch, 0);
    QVERIFY(!hasValue(bare.trainLoss));
    QVERIFY(!bare.scaling);
    QCOMPARE(std::get<UnknownEvent>(c.events[1]).type, QString("something_new"));
    QCOMPARE(c.logs.size(), 6);  // the empty line is skipped
    for (int i = 0; i < 5; ++i) QCOMPARE(c.logs[i].second, LogKind::Output);
    QCOMPARE(c.logs[0].first, QString("oneDNN verbose: something"));
    QCOMPARE(c.logs[5].second, LogKind::Notice);
    QCOMPARE(c.logs[5].first,
             QString("engine event not understood: epoch event: epoch: expected an integer, got \"three\""));
  }

  // The reader is engine/protocol's: a field of the wrong type is an error naming it, not a
  // value read as something else; a plan's data and devices read as the engine wrote them.
  void protocolReaderNamesTheField() {
    QString why;
    QVERIFY(!parseEngineEvent("{\"event\":\"iteration\",\"devices\":[{\"id\":\"cpu:0\",\"compute_ms\":\"fast\"}]}", &why));
    QCOMPARE(why, QString("iteration event: devices[0].compute_ms: expected a number, got \"fast\""));
    const EngineLine junk = readEngineLine("oneDNN verbose");
    QCOMPARE(junk.kind, netsmith::protocol::EventLine::Kind::NotJson);
    const auto plan = parseEngineEvent(
        "{\"event\":\"plan\",\"logical_batch\":128,\"devices\":[{\"id\":\"cpu:0\",\"batch\":64,\"threads\":2},"
        "{\"id\":\"cpu:1\",\"batch\":64,\"threads\":2}],\"data\":[{\"role\":\"training\",\"source\":\"/d/train.nsstore\","
        "\"storage\":\"streamed\",\"samples\":60000,\"shape\":[1,28,28],\"disk_bytes\":47000000,\"memory_bytes\":0}]}");
    QVERIFY(plan);
    const TrainingPlan& p = std::get<PlanEvent>(*plan).plan;
    QCOMPARE(p.logicalBatch, 128);
    QCOMPARE(p.devices.at(1).offset, 64);
    const QString data = describeDataSet(p.data.at(0));
    QVERIFY2(data.startsWith(QStringLiteral("training: ") + QLocale().toString(60000) + QString::fromUtf8(" × 1×28×28, ")),
             qPrintable(data));
    QVERIFY2(data.endsWith(QStringLiteral("streamed from train.nsstore")), qPrintable(data));
    // A resume on other devices says what changed.
    const auto resumed = parseEngineEvent(
        "{\"event\":\"resumed_from_checkpoint\",\"path\":\"c\",\"epoch\":2,\"iteration\":3,"
        "\"device_change\":{\"message\":\"Resumed on cpu:0 (was cpu:0,cpu:1)\"}}");
    QVERIFY(resumed);
    QCOMPARE(std::get<ControlEvent>(*resumed).deviceChange, QString("Resumed on cpu:0 (was cpu:0,cpu:1)"));
  }

  void truncatedLastLineIsReported() {
    EventStreamReader reader;
    Collected c;
    c.attach(reader);
    reader.feed("{\"event\":\"iteration\",\"epoch\":1,\"iteration\":1,\"loss\":0.5}\n{\"event\":\"iteration\",\"ep");
    QCOMPARE(c.events.size(), 1);
    reader.finish();
    QCOMPARE(c.events.size(), 1);
    QCOMPARE(c.logs.size(), 1);
    QCOMPARE(c.logs[0].second, LogKind::Notice);
    QVERIFY(c.logs[0].first.contains("middle of a line"));
  }

  void completeEventWithoutNewlineAtEnd() {
    EventStreamReader reader;
    Collected c;
    c.attach(reader);
    reader.feed("{\"event\":\"finished\",\"status\":\"stopped\"}");
    reader.finish();
    QCOMPARE(c.events.size(), 1);
    QCOMPARE(std::get<FinishedEvent>(c.events[0]).status, QString("stopped"));
  }

  void overlongLineIsDropped() {
    EventStreamReader reader;
    Collected c;
    c.attach(reader);
    const QByteArray big(LineSplitter::kMaxLineBytes + 10, 'x');
    reader.feed(big.left(1000));
    reader.feed(big.mid(1000));
    reader.feed("yyy\n{\"event\":\"warning\",\"message\":\"after\"}\n");
    reader.finish();
    QCOMPARE(c.events.size(), 1);
    QCOMPARE(std::get<MessageEvent>(c.events[0]).message, QString("after"));
    QCOMPARE(c.logs.size(), 1);
    QVERIFY(c.logs[0].first.contains("longer than"));
  }

  void crashMidLineReportsSignal() {
    QTemporaryDir dir;
    EngineProcess engine;
    engine.setProgram(script(dir, "printf '{\"event\":\"started\",\"run\":\"r\"}\\n{\"event\":\"itera'\n"
                                  "kill -9 $$\n"));
    QList<EngineEvent> events;
    QStringList logs;
    connect(&engine, &EngineProcess::eventReceived, [&](const EngineEvent& e) { events << e; });
    connect(&engine, &EngineProcess::logLine, [&](const QString& l, LogKind) { logs << l; });
    QSignalSpy finished(&engine, &EngineProcess::finished);
    engine.start({});
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.size(), 1);
    const auto outcome = finished[0][0].value<RunOutcome>();
    QCOMPARE(outcome.status, RunOutcome::Status::Failed);
    QVERIFY(outcome.crashed);
    QCOMPARE(outcome.exitCode, 9);
    QVERIFY2(outcome.message.contains("SIGKILL"), qPrintable(outcome.message));
    QCOMPARE(events.size(), 1);
    QVERIFY(logs.join('\n').contains("middle of a line"));
  }

  void nonZeroExitCarriesStandardError() {
    QTemporaryDir dir;
    EngineProcess engine;
    engine.setProgram(script(dir, "echo 'netsmith-cli train: x.nsproj: no such file' >&2\nexit 1\n"));
    QSignalSpy finished(&engine, &EngineProcess::finished);
    engine.start({});
    QVERIFY(finished.wait(10000));
    const auto outcome = finished[0][0].value<RunOutcome>();
    QCOMPARE(outcome.status, RunOutcome::Status::Failed);
    QVERIFY(!outcome.crashed);
    QCOMPARE(outcome.exitCode, 1);
    QVERIFY(outcome.message.contains("no such file"));
  }

  void finishedEventDecidesStatus() {
    QTemporaryDir dir;
    EngineProcess engine;
    engine.setProgram(script(dir, "echo '{\"event\":\"finished\",\"status\":\"stopped\"}'\nexit 3\n"));
    QSignalSpy finished(&engine, &EngineProcess::finished);
    engine.start({});
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished[0][0].value<RunOutcome>().status, RunOutcome::Status::Stopped);
  }

  void controlLinesReachStandardInput() {
    QTemporaryDir dir;
    EngineProcess engine;
    engine.setProgram(script(dir, "read a\nread b\necho \"{\\\"event\\\":\\\"warning\\\",\\\"message\\\":\\\"$a,$b\\\"}\"\n"
                                  "echo '{\"event\":\"finished\",\"status\":\"completed\"}'\n"));
    QList<EngineEvent> events;
    connect(&engine, &EngineProcess::eventReceived, [&](const EngineEvent& e) { events << e; });
    QSignalSpy finished(&engine, &EngineProcess::finished);
    engine.start({});
    engine.pause();
    engine.stop();
    QVERIFY(finished.wait(10000));
    QCOMPARE(events.size(), 2);
    QCOMPARE(std::get<MessageEvent>(events[0]).message, QString("pause,stop"));
    QCOMPARE(finished[0][0].value<RunOutcome>().status, RunOutcome::Status::Completed);
  }

  void missingProgramFailsToStart() {
    EngineProcess engine;
    engine.setProgram("/nonexistent/netsmith-cli");
    QSignalSpy finished(&engine, &EngineProcess::finished);
    engine.start({"train"});
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.size(), 1);
    const auto outcome = finished[0][0].value<RunOutcome>();
    QCOMPARE(outcome.status, RunOutcome::Status::Failed);
    QVERIFY(outcome.message.contains("cannot start"));
  }
};

QTEST_GUILESS_MAIN(TestEventStream)
#include "tst_event_stream.moc"
