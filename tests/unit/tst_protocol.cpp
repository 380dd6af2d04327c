// netsmith-test-labels: asan
// engine/protocol: every type's writer and reader agree (a round trip keeps every field), the
// writers produce the keys of docs/events.md and docs/evaluation.md, and damaged or partial
// input gives a clear error naming the field, or a tolerated default, never a crash (Note
// [Protocol reading rules]).
#include <QtTest>

#include <cmath>

#include "engine/protocol/evaluation_report.h"
#include "engine/protocol/events.h"
#include "engine/protocol/learning_curve.h"
#include "engine/protocol/training_plan.h"

using namespace netsmith::protocol;

namespace {

// What a reader sees: the writer's JSON through text (NaN becomes null).
std::string line(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

TrainingPlan fullPlan() {
  TrainingPlan p;
  p.devices = {{"cpu:0", "CPU worker 0", "", 1.0, 48, 2, 0}, {"cpu:1", "CPU worker 1", "node2", 2.0, 80, 2, 48},
               {"cpu:2", "CPU worker 2", "", 0.0, 0, 0, 128}};
  p.activeDevices = 2;
  p.lrPolicy = "scale_lr";
  p.batchSize = 64;
  p.logicalBatch = 128;
  p.trainSamples = 60000;
  p.iterationsPerEpoch = 468;
  p.maxEpoch = 3;
  p.baseLr = 0.001;
  p.effectiveLr = 0.002;
  p.lrScale = 2;
  p.lrUpdateInterval = 5;
  p.warmupIterations = 12;
  p.deterministic = true;
  p.precision = "bf16";
  p.augmentationText = "horizontal flip, crop padding 4";
  p.chunk = 32;
  p.identicalAcrossDeviceCounts = true;
  p.logicalBatchKept = true;
  p.checkpointBytes = 1000;
  p.diskBytesNeeded = 5000;
  p.diskBytesFree = 123456789;
  p.data = {{"training", "/d/train.nsstore", "streamed", 60000, {1, 28, 28}, 47000000, 0},
            {"validation", "/d/t10k-images-idx3-ubyte.gz", "bytes", 10000, {1, 28, 28}, 7800000, 7840000}};
  p.modelBytesPerWorker = 100;
  p.activationBytesPerWorker = 200;
  p.memoryBytesNeeded = 300;
  p.warnings = {"cpu:2 has worker_load 0: it stays idle", "second"};
  return p;
}

std::vector<Event> everyEvent() {
  StartedEvent started;
  started.plan = fullPlan();
  started.run = "/runs/20260101-120000";
  started.project = "LeNet";
  started.batchPerDevice = 48;
  started.solver = "Adam";
  started.validationSamples = 10000;
  started.parameters = 44426;
  started.resumed = true;
  started.startEpoch = 2;
  started.startIteration = 17;
  DeviceChange change;
  change.message = "Resumed on cpu:0,cpu:1 (was cpu:0): per-device batch 64 (was 128), logical batch 128 unchanged";
  change.devices = {{"cpu:0", 64}, {"cpu:1", 64}};
  change.previousDevices = {{"cpu:0", 128}};
  change.logicalBatch = change.previousLogicalBatch = 128;
  change.effectiveLr = change.previousEffectiveLr = 0.002;
  started.deviceChange = change;
  ResumedFromCheckpointEvent restored{"/runs/r/checkpoints/e0001_i000017.ckpt", 2, 17, change};

  IterationEvent it;
  it.epoch = 2;
  it.iteration = 20;
  it.iterationsPerEpoch = 468;
  it.globalIteration = 488;
  it.loss = 0.53;
  it.lr = 0.002;
  it.samplesPerS = 51234.5;
  it.etaS = 12.5;
  it.processMemoryMb = 812.25;
  DeviceFigures gpu{"cuda:0", 3.1, 0.2, 0.4, 0.1, 0.3, 0.93, 812, 61.0, 230.5};
  DeviceFigures cpu{"cpu:0", 3.5, 0.5, 0.6, 0.2, 0.4, 0.5, 100, std::nullopt, std::nullopt};
  it.devices = {gpu, cpu};

  EpochEvent epoch;
  epoch.epoch = 2;
  epoch.trainLoss = 0.41;
  epoch.validationLoss = 0.38;
  epoch.validationError = 0.12;
  epoch.seconds = 4.2;
  epoch.lr = 0.002;
  epoch.scaling = EpochScaling{2, 9000, 0.1, 0.05, 0.7, 1.8};
  EpochEvent unvalidated;
  unvalidated.epoch = 1;
  unvalidated.trainLoss = 0.5;
  unvalidated.seconds = 1;
  unvalidated.lr = 0.001;

  FinishedEvent completed;
  completed.status = "completed";
  completed.run = "/runs/r";
  completed.epochs = 3;
  completed.bestValidationError = 0.089;
  completed.parametersSha256 = std::string(64, 'a');
  ScalingVerdict verdict;
  verdict.devices = 2;
  verdict.samplesPerS = 9000;
  verdict.singleDeviceSamplesPerS = 5000;
  verdict.singleDeviceMeasured = true;
  verdict.baselineRun = "20260101-110000";
  verdict.speedup = 1.8;
  verdict.efficiency = 0.9;
  verdict.allreduceShare = 0.12;
  verdict.allreduceHidden = 0.7;
  verdict.text = "2 GPUs: 1.8× one GPU's samples/s (90%)";
  completed.scalingVerdict = verdict;
  completed.earlyStopped = EarlyStop{9, 6, 0.11, 3, 0.001, "stopped early at epoch 9", 6};
  completed.gpus = {{"cuda:0", 70.4, 212.0}, {"cuda:1", std::nullopt, std::nullopt}};
  FinishedEvent failed;
  failed.status = "failed";
  failed.message = "cpu:1 failed: injected";
  FinishedEvent already;
  already.status = "completed";
  already.alreadyCompleted = true;
  already.message = "nothing to resume";
  already.run = "/runs/r";
  already.epochs = 3;
  already.parametersSha256 = "abc";  // best_validation_error null: never validated

  return {started,
          PlanEvent{fullPlan()},
          it,
          epoch,
          unvalidated,
          CheckpointEvent{3, 0, 1404, "checkpoints/e0003_i000000.ckpt"},
          PausedEvent{{2, 20, 488}},
          ResumedEvent{{2, 20, 488}},
          ResumedFromCheckpointEvent{"/runs/r/checkpoints/e0001_i000017.ckpt", 2, 17, std::nullopt},
          restored,
          WarningEvent{"skipped 3 dataset rows"},
          ErrorEvent{"the training loss became nan"},
          ProfileEvent{Json{{"format", "netsmith-profile"}, {"iterations", 10}, {"workers", Json::array()}}},
          completed,
          failed,
          already,
          UnknownEvent{"something_new", Json{{"event", "something_new"}, {"x", 1}}}};
}

// Every value inside `j` replaced, one at a time, by values of other types: the reader must
// answer with the event or a ReadError, never crash or throw anything else.
void mutateEverywhere(Json& root, Json& node, int& reads) {
  static const Json kWrong[] = {"text", Json::array({1, 2}), Json::object({{"k", 1}}), true, 2.5, -1, nullptr};
  if (node.is_object()) {
    for (auto& [key, value] : node.items()) {
      if (key == "event") continue;
      const Json saved = value;
      for (const Json& w : kWrong) {
        value = w;
        const EventLine l = readEventLine(line(root));
        QVERIFY(l.kind == EventLine::Kind::Event || l.kind == EventLine::Kind::Damaged);
        if (l.kind == EventLine::Kind::Damaged) QVERIFY2(l.error.find(key) != std::string::npos, l.error.c_str());
        ++reads;
      }
      value = saved;
      mutateEverywhere(root, value, reads);
    }
  } else if (node.is_array()) {
    for (auto& element : node) mutateEverywhere(root, element, reads);
  }
}

}  // namespace

class TestProtocol : public QObject {
  Q_OBJECT
 private slots:
  // Write, read, write: the same line, for every event kind (and the reader picks the right one).
  void everyEventRoundTrips() {
    for (const Event& e : everyEvent()) {
      const std::string written = line(eventToJson(e));
      const EventLine read = readEventLine(written);
      QVERIFY2(read.kind == EventLine::Kind::Event, (written + ": " + read.error).c_str());
      QCOMPARE(read.event->index(), e.index());
      QCOMPARE(eventName(*read.event), eventName(e));
      QCOMPARE(line(eventToJson(*read.event)), written);
    }
  }

  // The writers produce docs/events.md's keys: a few events spelled out whole.
  void writersMatchTheDocumentedKeys() {
    EpochEvent e;
    e.epoch = 1;
    e.trainLoss = 0.5;
    e.validationError = 0.25;
    e.seconds = 2;
    e.lr = 0.01;
    e.scaling = EpochScaling{1, 100, 0, 0.5, 0, 1};
    QCOMPARE(line(e.toJson()),
             std::string("{\"epoch\":1,\"event\":\"epoch\",\"lr\":0.01,\"scaling\":{\"communication_share\":0.0,"
                         "\"data_share\":0.5,\"devices\":1,\"samples_per_s\":100.0,\"speedup_estimate\":1.0,"
                         "\"sync_seconds\":0.0},\"seconds\":2.0,\"train_loss\":0.5,\"validation_error\":0.25,"
                         "\"validation_loss\":null}"));
    FinishedEvent failed;
    failed.status = "failed";
    failed.message = "m";
    QCOMPARE(line(failed.toJson()), std::string("{\"event\":\"finished\",\"message\":\"m\",\"status\":\"failed\"}"));
    QCOMPARE(line(PausedEvent{{1, 2, 3}}.toJson()),
             std::string("{\"epoch\":1,\"event\":\"paused\",\"global_iteration\":3,\"iteration\":2}"));

    const Json plan = fullPlan().toJson();
    for (const char* key : {"devices", "active_devices", "lr_policy", "batch_size", "logical_batch", "train_samples",
                            "iterations_per_epoch", "max_epoch", "base_lr", "effective_lr", "lr_scale",
                            "lr_update_interval", "warmup_iterations", "deterministic", "precision", "augmentation",
                            "warnings", "chunk", "identical_across_device_counts", "logical_batch_kept", "data", "model_bytes_per_worker",
                            "activation_bytes_per_worker", "memory_bytes_needed", "checkpoint_bytes",
                            "disk_bytes_needed", "disk_bytes_free"})
      QVERIFY2(plan.contains(key), key);
    QVERIFY(!plan["devices"][0].contains("offset"));  // derived, not written
    QCOMPARE(plan["devices"][2]["idle"].get<bool>(), true);
    // Optional groups are left out when they do not apply.
    TrainingPlan small;
    small.devices = {{"cpu:0", "", "", 1, 64, 1, 0}};
    const Json s = small.toJson();
    for (const char* key : {"chunk", "logical_batch_kept", "data", "checkpoint_bytes", "memory_bytes_needed"})
      QVERIFY2(!s.contains(key), key);
    QVERIFY(!s["devices"][0].contains("name") && !s["devices"][0].contains("host"));
  }

  void planRoundTripsAndDerivesOffsets() {
    const TrainingPlan p = TrainingPlan::fromJson(fullPlan().toJson());
    QCOMPARE(line(p.toJson()), line(fullPlan().toJson()));
    QCOMPARE(p.devices.size(), size_t{3});
    QCOMPARE(p.devices[1].offset, int64_t{48});
    QCOMPARE(p.devices[2].offset, int64_t{128});
    QCOMPARE(p.devices[1].host, std::string("node2"));
    QCOMPARE(p.data[0].shape, (netsmith::Shape{1, 28, 28}));
    // An older engine's started event: batch_per_device only, no active_devices.
    const TrainingPlan old = TrainingPlan::fromJson(
        Json{{"batch_per_device", 32}, {"devices", {{{"id", "cpu:0"}, {"batch", 32}}, {{"id", "cpu:1"}, {"batch", 0}}}}});
    QCOMPARE(old.batchSize, int64_t{32});
    QCOMPARE(old.activeDevices, 1);
    QCOMPARE(old.devices[0].threads, 1);
    QVERIFY(!defined(old.baseLr));
  }

  // Missing fields take their defaults: the GUI keeps working with an engine that leaves some out.
  void missingFieldsAreTolerated() {
    const EventLine epoch = readEventLine(R"({"event":"epoch"})");
    QCOMPARE(epoch.kind, EventLine::Kind::Event);
    const auto& e = std::get<EpochEvent>(*epoch.event);
    QCOMPARE(e.epoch, int64_t{0});
    QVERIFY(!defined(e.trainLoss));
    QVERIFY(!e.validationLoss && !e.validationError && !e.scaling);

    const auto started = std::get<StartedEvent>(*readEventLine(R"({"event":"started","run":"/r"})").event);
    QCOMPARE(started.run, std::string("/r"));
    QVERIFY(started.plan.devices.empty());
    QCOMPARE(started.startEpoch, int64_t{1});

    const auto finished = std::get<FinishedEvent>(*readEventLine(R"({"event":"finished","status":"completed"})").event);
    QVERIFY(!finished.epochs && !finished.bestValidationError && !finished.scalingVerdict);
    QVERIFY(finished.gpus.empty());

    // null where a number is not defined, and unknown keys, are fine.
    const auto it = std::get<IterationEvent>(*readEventLine(
        R"({"event":"iteration","loss":null,"new_key":{"x":[1]},"devices":[{"id":"cpu:0","compute_ms":null,"extra":1}]})")
                                                 .event);
    QVERIFY(!defined(it.loss));
    QVERIFY(!defined(it.devices.at(0).computeMs));
    QVERIFY(!it.devices[0].temperatureC);
  }

  // A value of the wrong type is an error naming the event and the field's path.
  void wrongTypesNameTheField() {
    struct Case {
      const char* line;
      const char* error;
    };
    const Case cases[] = {
        {R"({"event":"epoch","epoch":"three"})", "epoch event: epoch: expected an integer, got \"three\""},
        {R"({"event":"epoch","epoch":1.5})", "epoch event: epoch: expected an integer, got 1.5"},
        {R"({"event":"epoch","train_loss":[1]})", "epoch event: train_loss: expected a number, got an array of 1"},
        {R"({"event":"epoch","scaling":{"data_share":"high"}})",
         "epoch event: scaling.data_share: expected a number, got \"high\""},
        {R"({"event":"started","devices":[{"id":"cpu:0"},{"id":"cpu:1","batch":"x"}]})",
         "started event: devices[1].batch: expected an integer, got \"x\""},
        {R"({"event":"started","devices":{"id":"cpu:0"}})", "started event: devices: expected an array, got an object"},
        {R"({"event":"plan","warnings":["ok",3]})", "plan event: warnings[1]: expected a string, got 3"},
        {R"({"event":"plan","deterministic":"yes"})", "plan event: deterministic: expected true or false, got \"yes\""},
        {R"({"event":"iteration","devices":[5]})", "iteration event: devices[0]: expected an object, got 5"},
        {R"({"event":"finished","gpus":[{"id":"cuda:0","mean_power_w":"hot"}]})",
         "finished event: gpus[0].mean_power_w: expected a number, got \"hot\""},
        {R"({"event":"finished","scaling_verdict":{"text":7}})",
         "finished event: scaling_verdict.text: expected a string, got 7"},
        {R"({"event":"checkpoint","path":{}})", "checkpoint event: path: expected a string, got an object"},
        {R"({"event":"warning","message":false})", "warning event: message: expected a string, got false"},
    };
    for (const Case& c : cases) {
      const EventLine l = readEventLine(c.line);
      QCOMPARE(l.kind, EventLine::Kind::Damaged);
      QCOMPARE(l.error, std::string(c.error));
      QVERIFY(!l.event);
    }
  }

  // Lines that are not events at all are told apart from damaged events.
  void junkLinesAreNotEvents() {
    struct Case {
      std::string line;
      EventLine::Kind kind;
    };
    const Case cases[] = {{"", EventLine::Kind::NotJson},
                          {"oneDNN verbose: something", EventLine::Kind::NotJson},
                          {"{not json", EventLine::Kind::NotJson},
                          {std::string("\x01\x02\xff", 3), EventLine::Kind::NotJson},
                          {"[1,2,3]", EventLine::Kind::NotEvent},
                          {"42", EventLine::Kind::NotEvent},
                          {"{\"no_event\":1}", EventLine::Kind::NotEvent},
                          {"{\"event\":7}", EventLine::Kind::NotEvent},
                          {"{\"event\":\"epoch\",\"epoch\":1} trailing", EventLine::Kind::NotJson}};
    for (const Case& c : cases) {
      const EventLine l = readEventLine(c.line);
      QCOMPARE(l.kind, c.kind);
      QVERIFY(!l.event);
      QVERIFY(!l.error.empty());
    }
    // A newer engine's event is kept whole, not refused.
    const EventLine unknown = readEventLine(R"({"event":"something_new","x":1})");
    QCOMPARE(unknown.kind, EventLine::Kind::Event);
    QCOMPARE(std::get<UnknownEvent>(*unknown.event).name, std::string("something_new"));
    QCOMPARE(std::get<UnknownEvent>(*unknown.event).json["x"].get<int>(), 1);
  }

  // Every prefix of every event line (a line cut by a killed engine) and every field replaced by
  // values of other types: an error or an event, never a crash.
  void damagedLinesNeverCrash() {
    int reads = 0;
    for (const Event& e : everyEvent()) {
      const std::string written = line(eventToJson(e));
      for (size_t n = 0; n < written.size(); ++n) {
        const EventLine l = readEventLine(std::string_view(written).substr(0, n));
        QVERIFY(l.kind != EventLine::Kind::Event);
        ++reads;
      }
      Json root = eventToJson(e);
      mutateEverywhere(root, root, reads);
    }
    QVERIFY(reads > 1000);
  }

  void evaluationReportRoundTrips() {
    EvaluationReport r;
    r.samples = 4;
    r.classes = 2;
    r.correct = 3;
    r.accuracy = 0.75;
    r.error = 0.25;
    r.classNames = {"T-shirt, top", "Trouser"};
    r.macroPrecision = 0.8;
    r.macroRecall = 0.7;
    r.macroFMeasure = 0.74;
    r.perClass = {{0, "T-shirt, top", 2, 1, 1, 1.0, 0.5, 0.666}, {1, "Trouser", 2, 3, 2, 0.666, 1.0, 0.8}};
    r.confusion = {{1, 1}, {0, 2}};
    r.worst = {{3, 0, 1, "T-shirt, top", "Trouser", 0.2, 0.8, {0.2, 0.8}}};
    r.run = "/runs/r";
    r.project = "P";
    r.dataset = {"validation", "idx", "/d/img.gz", "/d/lab.gz", "", 0.00392156862, {1, 28, 28}};
    r.parametersWhich = "best";
    r.parametersPath = "/runs/r/best.nsparams";
    r.parametersMeta = {{"epoch", 7}, {"validation_error", 0.1}};
    r.devices = {"cpu:0", "cpu:1"};
    r.precision = "float";
    r.outputHead = "softmax";
    r.classNamesFile = "/runs/r/classes.txt";
    r.warnings = {"w"};
    r.seconds = 1.5;
    r.jsonFile = "a.json";
    r.reportFile = "report.txt";
    r.predictionsFile = "predictions.csv";
    const std::string written = line(r.toJson());
    const EvaluationReport back = EvaluationReport::fromJson(Json::parse(written));
    QCOMPARE(line(back.toJson()), written);
    QCOMPARE(back.parametersEpoch(), int64_t{7});
    QCOMPARE(back.worst.at(0).likelihoods, (std::vector<double>{0.2, 0.8}));
    // Unnamed classes: class_names_file is null.
    r.classNamesFile.clear();
    QVERIFY(r.toJson()["class_names_file"].is_null());
  }

  void damagedEvaluationReports() {
    auto error = [](const std::string& text) {
      try {
        EvaluationReport::fromJson(Json::parse(text));
      } catch (const ReadError& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    QCOMPARE(error(R"({"error":"RUN/parameters.nsparams: not found"})"), std::string("RUN/parameters.nsparams: not found"));
    QCOMPARE(error(R"({"samples":3})"), std::string("evaluation report: no confusion_matrix: not an evaluation"));
    QCOMPARE(error("[1]"), std::string("evaluation report: expected an object, got an array of 1"));
    QCOMPARE(error(R"({"confusion_matrix":[[1,"2"]]})"),
             std::string("evaluation report: confusion_matrix[0][1]: expected an integer, got \"2\""));
    QCOMPARE(error(R"({"confusion_matrix":[[1]],"per_class":[{"precision":"high"}]})"),
             std::string("evaluation report: per_class[0].precision: expected a number, got \"high\""));
    QCOMPARE(error(R"({"confusion_matrix":[[1]],"parameters":{"meta":[1]}})"),
             std::string("evaluation report: parameters.meta: expected an object, got an array of 1"));
    // The figures alone (an evaluation written before the context keys): defaults for the rest.
    const EvaluationReport minimal = EvaluationReport::fromJson(Json::parse(R"({"confusion_matrix":[[2,0],[1,1]]})"));
    QCOMPARE(minimal.classes, int64_t{2});
    QCOMPARE(minimal.dataset.scale, 1.0);
    QCOMPARE(minimal.parametersEpoch(), int64_t{0});
  }

  void learningCurveRoundTrips() {
    const LearningCurve curve = {{1, 0.5, 0.45, 0.12, 3.25, 0.001}, {2, 0.25, std::nullopt, std::nullopt, 3.5, 0.0005}};
    const std::string csv = learningCurveToCsv(curve);
    QCOMPARE(csv, std::string("epoch,train_loss,validation_loss,validation_error,seconds,learning_rate\n"
                              "1,0.5,0.45,0.12,3.25,0.001\n"
                              "2,0.25,,,3.5,0.0005\n"));
    QCOMPARE(learningCurveToCsv(learningCurveFromCsv(csv, "learning_curve.csv")), csv);
    const Json json = learningCurveToJson(curve);
    QCOMPARE(line(json), std::string("[[1,0.5,0.45,0.12,3.25,0.001],[2,0.25,null,null,3.5,0.0005]]"));
    QCOMPARE(line(learningCurveToJson(learningCurveFromJson(json, "checkpoint curve"))), line(json));
    // Columns by name, other columns ignored, CRLF line ends and blank lines.
    const LearningCurve moved = learningCurveFromCsv("seconds,epoch,train_loss,note\r\n1.5,4,0.2,x\r\n\r\n", "f.csv");
    QCOMPARE(moved.size(), size_t{1});
    QCOMPARE(moved[0].epoch, int64_t{4});
    QCOMPARE(moved[0].seconds, 1.5);
    QVERIFY(!moved[0].validationError);
    QVERIFY(learningCurveFromCsv("", "f.csv").empty());
  }

  void damagedLearningCurves() {
    auto csvError = [](const std::string& text) {
      try {
        learningCurveFromCsv(text, "RUN/learning_curve.csv");
      } catch (const ReadError& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    QCOMPARE(csvError("1,0.5\n"), std::string("RUN/learning_curve.csv: line 1: expected a header with the columns epoch "
                                              "and train_loss (epoch,train_loss,validation_loss,validation_error,"
                                              "seconds,learning_rate), got \"1,0.5\""));
    QCOMPARE(csvError("epoch,train_loss\n1,abc\n"),
             std::string("RUN/learning_curve.csv: line 2, column train_loss: expected a number, got \"abc\""));
    QCOMPARE(csvError("epoch,train_loss\n1.5,0.1\n"),
             std::string("RUN/learning_curve.csv: line 2, column epoch: expected an epoch number, got \"1.5\""));
    QCOMPARE(csvError("epoch,train_loss\n,0.1\n"),
             std::string("RUN/learning_curve.csv: line 2, column epoch: expected an epoch number, got \"\""));
    // A short row (a line cut by a kill) reads what it has.
    QCOMPARE(learningCurveFromCsv("epoch,train_loss,validation_loss\n3\n", "f").at(0).epoch, int64_t{3});

    auto jsonError = [](const Json& j) {
      try {
        learningCurveFromJson(j, "checkpoint curve");
      } catch (const ReadError& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    QCOMPARE(jsonError(Json::object()), std::string("checkpoint curve: expected an array of learning curve rows, got an object"));
    QCOMPARE(jsonError(Json::parse("[[1,0.5,null,null,1]]")),
             std::string("checkpoint curve: [0]: expected [epoch, train_loss, validation_loss, validation_error, "
                         "seconds, learning_rate], got an array of 5"));
    QCOMPARE(jsonError(Json::parse(R"([[1,0.5,"x",null,1,0]])")),
             std::string("checkpoint curve: [0][2]: expected a number, got \"x\""));
  }
};

QTEST_GUILESS_MAIN(TestProtocol)
#include "tst_protocol.moc"
