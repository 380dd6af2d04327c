#include "engine/protocol/events.h"

namespace netsmith::protocol {
namespace {

// The reader of one event's fields: names the event in errors ("epoch event: train_loss: ...").
FieldReader eventFields(const Json& json, const char* name) { return FieldReader(json, format("{} event", name)); }

Json named(const char* name, Json fields) {
  fields["event"] = name;
  return fields;
}

}  // namespace

// --- started, plan ----------------------------------------------------------------------------

namespace {
Json slicesJson(const std::vector<DeviceChange::Slice>& slices) {
  Json list = Json::array();
  for (const auto& d : slices) list.push_back({{"id", d.id}, {"batch", d.batch}});
  return list;
}
std::vector<DeviceChange::Slice> readSlices(const FieldReader& o, const char* key) {
  std::vector<DeviceChange::Slice> out;
  o.forEachObject(key, [&](const FieldReader& d) { out.push_back({d.text("id"), d.integer("batch")}); });
  return out;
}
}  // namespace

Json DeviceChange::toJson() const {
  return {{"message", message},
          {"devices", slicesJson(devices)},
          {"previous_devices", slicesJson(previousDevices)},
          {"logical_batch", logicalBatch},
          {"previous_logical_batch", previousLogicalBatch},
          {"effective_lr", effectiveLr},
          {"previous_effective_lr", previousEffectiveLr}};
}

DeviceChange DeviceChange::fromJson(const Json& json, const Where& where) {
  const FieldReader o(json, where);
  DeviceChange c;
  c.message = o.text("message");
  c.devices = readSlices(o, "devices");
  c.previousDevices = readSlices(o, "previous_devices");
  c.logicalBatch = o.integer("logical_batch");
  c.previousLogicalBatch = o.integer("previous_logical_batch", c.logicalBatch);
  c.effectiveLr = o.number("effective_lr");
  c.previousEffectiveLr = o.number("previous_effective_lr", c.effectiveLr);
  return c;
}

Json StartedEvent::toJson() const {
  Json j = plan.toJson();
  j.update({{"event", kName},
            {"format_version", formatVersion},
            {"run", run},
            {"project", project},
            {"batch_per_device", batchPerDevice},
            {"solver", solver},
            {"validation_samples", validationSamples},
            {"parameters", parameters},
            {"resumed", resumed},
            {"start_epoch", startEpoch},
            {"start_iteration", startIteration}});
  if (deviceChange) j["device_change"] = deviceChange->toJson();
  return j;
}

StartedEvent StartedEvent::fromJson(const Json& json) {
  const FieldReader o = eventFields(json, kName);
  StartedEvent e;
  e.plan = TrainingPlan::fromJson(json, o.where().document);
  e.formatVersion = static_cast<int>(o.integer("format_version", kEventsFormatVersion));
  e.run = o.text("run");
  e.project = o.text("project");
  e.batchPerDevice = o.integer("batch_per_device");
  e.solver = o.text("solver");
  e.validationSamples = o.integer("validation_samples");
  e.parameters = o.integer("parameters");
  e.resumed = o.flag("resumed");
  e.startEpoch = o.integer("start_epoch", 1);
  e.startIteration = o.integer("start_iteration");
  if (const auto c = o.object("device_change")) e.deviceChange = DeviceChange::fromJson(c->json(), c->where());
  return e;
}

Json PlanEvent::toJson() const { return named(kName, plan.toJson()); }

PlanEvent PlanEvent::fromJson(const Json& json) { return {TrainingPlan::fromJson(json, "plan event")}; }

// --- iteration, epoch ---------------------------------------------------------------------------

Json IterationEvent::toJson() const {
  Json devs = Json::array();
  for (const DeviceFigures& d : devices) {
    Json j = {{"id", d.id},
              {"compute_ms", d.computeMs},
              {"sync_ms", d.syncMs},
              {"overlap_ms", d.overlapMs},
              {"wait_ms", d.waitMs},
              {"data_ms", d.dataMs},
              {"utilization", d.utilization},
              {"memory_mb", d.memoryMb}};
    if (d.temperatureC) j["temperature_c"] = *d.temperatureC;
    if (d.powerW) j["power_w"] = *d.powerW;
    devs.push_back(std::move(j));
  }
  return {{"event", kName},
          {"epoch", epoch},
          {"iteration", iteration},
          {"iterations_per_epoch", iterationsPerEpoch},
          {"global_iteration", globalIteration},
          {"loss", loss},
          {"lr", lr},
          {"samples_per_s", samplesPerS},
          {"elapsed_s", elapsedS},
          {"eta_s", etaS},
          {"process_memory_mb", processMemoryMb},
          {"devices", devs}};
}

IterationEvent IterationEvent::fromJson(const Json& json) {
  const FieldReader o = eventFields(json, kName);
  IterationEvent e;
  e.epoch = o.integer("epoch");
  e.iteration = o.integer("iteration");
  e.iterationsPerEpoch = o.integer("iterations_per_epoch");
  e.globalIteration = o.integer("global_iteration");
  e.loss = o.number("loss");
  e.lr = o.number("lr");
  e.samplesPerS = o.number("samples_per_s");
  e.etaS = o.number("eta_s");
  e.processMemoryMb = o.number("process_memory_mb");
  e.elapsedS = o.number("elapsed_s");  // absent in the events of older engines
  o.forEachObject("devices", [&](const FieldReader& d) {
    DeviceFigures f;
    f.id = d.text("id");
    f.computeMs = d.number("compute_ms");
    f.dataMs = d.number("data_ms");
    f.syncMs = d.number("sync_ms");
    f.waitMs = d.number("wait_ms");
    f.overlapMs = d.number("overlap_ms");
    f.utilization = d.number("utilization");
    f.memoryMb = d.number("memory_mb");
    f.temperatureC = d.optionalNumber("temperature_c");
    f.powerW = d.optionalNumber("power_w");
    e.devices.push_back(std::move(f));
  });
  return e;
}

Json EpochEvent::toJson() const {
  Json j = {{"event", kName},
            {"epoch", epoch},
            {"train_loss", trainLoss},
            {"validation_loss", optionalJson(validationLoss)},
            {"validation_error", optionalJson(validationError)},
            {"seconds", seconds},
            {"lr", lr}};
  if (scaling)
    j["scaling"] = {{"devices", scaling->devices},
                    {"samples_per_s", scaling->samplesPerS},
                    {"communication_share", scaling->communicationShare},
                    {"data_share", scaling->dataShare},
                    {"sync_seconds", scaling->syncSeconds},
                    {"speedup_estimate", scaling->speedupEstimate}};
  return j;
}

EpochEvent EpochEvent::fromJson(const Json& json) {
  const FieldReader o = eventFields(json, kName);
  EpochEvent e;
  e.epoch = o.integer("epoch");
  e.trainLoss = o.number("train_loss");
  e.validationLoss = o.optionalNumber("validation_loss");
  e.validationError = o.optionalNumber("validation_error");
  e.seconds = o.number("seconds");
  e.lr = o.number("lr");
  if (const auto s = o.object("scaling")) {
    EpochScaling sc;
    sc.devices = s->integer("devices");
    sc.samplesPerS = s->number("samples_per_s");
    sc.communicationShare = s->number("communication_share");
    sc.dataShare = s->number("data_share");
    sc.syncSeconds = s->number("sync_seconds");
    sc.speedupEstimate = s->number("speedup_estimate");
    e.scaling = sc;
  }
  return e;
}

// --- checkpoint, pause, resume --------------------------------------------------------------------

Json CheckpointEvent::toJson() const {
  return {{"event", kName}, {"epoch", epoch}, {"iteration", iteration}, {"global_iteration", globalIteration}, {"path", path}};
}

CheckpointEvent CheckpointEvent::fromJson(const Json& json) {
  const FieldReader o = eventFields(json, kName);
  return {o.integer("epoch"), o.integer("iteration"), o.integer("global_iteration"), o.text("path")};
}

namespace {
Json positionJson(const char* name, const RunPosition& p) {
  return {{"event", name}, {"epoch", p.epoch}, {"iteration", p.iteration}, {"global_iteration", p.globalIteration}};
}
RunPosition readPosition(const Json& json, const char* name) {
  const FieldReader o = eventFields(json, name);
  return {o.integer("epoch"), o.integer("iteration"), o.integer("global_iteration")};
}
}  // namespace

Json PausedEvent::toJson() const { return positionJson(kName, *this); }
PausedEvent PausedEvent::fromJson(const Json& json) { return {readPosition(json, kName)}; }
Json ResumedEvent::toJson() const { return positionJson(kName, *this); }
ResumedEvent ResumedEvent::fromJson(const Json& json) { return {readPosition(json, kName)}; }

Json ResumedFromCheckpointEvent::toJson() const {
  Json j = {{"event", kName}, {"path", path}, {"epoch", epoch}, {"iteration", iteration}};
  if (deviceChange) j["device_change"] = deviceChange->toJson();
  return j;
}

ResumedFromCheckpointEvent ResumedFromCheckpointEvent::fromJson(const Json& json) {
  const FieldReader o = eventFields(json, kName);
  ResumedFromCheckpointEvent e{o.text("path"), o.integer("epoch"), o.integer("iteration"), std::nullopt};
  if (const auto c = o.object("device_change")) e.deviceChange = DeviceChange::fromJson(c->json(), c->where());
  return e;
}

// --- messages, profile -------------------------------------------------------------------------------

Json WarningEvent::toJson() const { return {{"event", kName}, {"message", message}}; }
WarningEvent WarningEvent::fromJson(const Json& json) { return {eventFields(json, kName).text("message")}; }
Json Divergence::toJson() const {
  return {{"reason", reason},
          {"epoch", epoch},
          {"iteration", iteration},
          {"global_iteration", globalIteration},
          {"block", block.empty() ? Json(nullptr) : Json(block)},
          {"pass", pass.empty() ? Json(nullptr) : Json(pass)},
          {"finding", finding},
          {"largest_gradient_norm", optionalJson(defined(largestGradientNorm) ? std::optional<double>(largestGradientNorm)
                                                                              : std::nullopt)},
          {"largest_gradient_norm_iteration", largestGradientNormIteration},
          {"learning_rate", learningRate},
          {"advice", advice}};
}

Divergence Divergence::fromJson(const Json& json, const Where& where) {
  const FieldReader o(json, where);
  Divergence d;
  d.reason = o.text("reason");
  d.epoch = o.integer("epoch");
  d.iteration = o.integer("iteration");
  d.globalIteration = o.integer("global_iteration");
  d.block = o.text("block");
  d.pass = o.text("pass");
  d.finding = o.text("finding");
  d.largestGradientNorm = o.optionalNumber("largest_gradient_norm").value_or(kUndefined);
  d.largestGradientNormIteration = o.integer("largest_gradient_norm_iteration");
  d.learningRate = o.number("learning_rate");
  d.advice = o.texts("advice");
  return d;
}

Json ErrorEvent::toJson() const {
  Json j = {{"event", kName}, {"message", message}};
  if (divergence) j["divergence"] = divergence->toJson();
  return j;
}

ErrorEvent ErrorEvent::fromJson(const Json& json) {
  const FieldReader o = eventFields(json, kName);
  ErrorEvent e;
  e.message = o.text("message");
  if (const auto v = o.object("divergence")) e.divergence = Divergence::fromJson(v->json(), v->where());
  return e;
}

Json ProfileEvent::toJson() const { return named(kName, profile.is_object() ? profile : Json::object()); }

ProfileEvent ProfileEvent::fromJson(const Json& json) {
  eventFields(json, kName);  // an object
  Json profile = json;
  profile.erase("event");
  return {profile};
}

// --- finished ------------------------------------------------------------------------------------------

Json ScalingVerdict::toJson() const {
  return {{"devices", devices},
          {"samples_per_s", samplesPerS},
          {"single_device_samples_per_s", singleDeviceSamplesPerS},
          {"single_device_measured", singleDeviceMeasured},
          {"baseline_run", baselineRun.empty() ? Json(nullptr) : Json(baselineRun)},
          {"speedup", speedup},
          {"efficiency", efficiency},
          {"allreduce_share", allreduceShare},
          {"allreduce_hidden", allreduceHidden},
          {"text", text}};
}

ScalingVerdict ScalingVerdict::fromJson(const Json& json, const Where& where) {
  const FieldReader o(json, where);
  ScalingVerdict v;
  v.devices = o.integer("devices");
  v.samplesPerS = o.number("samples_per_s");
  v.singleDeviceSamplesPerS = o.number("single_device_samples_per_s");
  v.singleDeviceMeasured = o.flag("single_device_measured");
  v.baselineRun = o.text("baseline_run");
  v.speedup = o.number("speedup");
  v.efficiency = o.number("efficiency");
  v.allreduceShare = o.number("allreduce_share");
  v.allreduceHidden = o.number("allreduce_hidden");
  v.text = o.text("text");
  return v;
}

Json GpuSummary::toJson() const {
  Json j = {{"id", id}, {"max_temperature_c", optionalJson(maxTemperatureC)}, {"mean_power_w", optionalJson(meanPowerW)}};
  if (peakMemoryMb) j["peak_memory_mb"] = *peakMemoryMb;
  return j;
}

GpuSummary GpuSummary::fromJson(const Json& json, const Where& where) {
  const FieldReader o(json, where);
  return {o.text("id"), o.optionalNumber("max_temperature_c"), o.optionalNumber("mean_power_w"),
          o.optionalInteger("peak_memory_mb")};
}

Json EarlyStop::toJson() const {
  return {{"epoch", epoch},       {"best_epoch", bestEpoch}, {"best_validation_error", bestValidationError},
          {"patience", patience}, {"min_delta", minDelta},   {"message", message},
          {"parameters_epoch", parametersEpoch ? Json(*parametersEpoch) : Json(nullptr)}};
}

EarlyStop EarlyStop::fromJson(const Json& json, const Where& where) {
  const FieldReader o(json, where);
  return {o.integer("epoch"),   o.integer("best_epoch"),      o.number("best_validation_error"),
          o.integer("patience"), o.number("min_delta", 0.0), o.text("message"),
          o.optionalInteger("parameters_epoch")};
}

Json FinishedEvent::toJson() const {
  Json j = {{"event", kName}, {"status", status}};
  if (!run.empty()) j["run"] = run;
  if (epochs) {
    j["epochs"] = *epochs;
    j["best_validation_error"] = optionalJson(bestValidationError);
    j["parameters_sha256"] = parametersSha256;
  }
  if (!message.empty()) j["message"] = message;
  if (alreadyCompleted) j["already_completed"] = true;
  if (earlyStopped) j["early_stopped"] = earlyStopped->toJson();
  if (scalingVerdict) j["scaling_verdict"] = scalingVerdict->toJson();
  if (!gpus.empty()) {
    Json list = Json::array();
    for (const GpuSummary& g : gpus) list.push_back(g.toJson());
    j["gpus"] = list;
  }
  if (divergence) j["divergence"] = divergence->toJson();
  if (processPeakMemoryMb) j["process_peak_memory_mb"] = *processPeakMemoryMb;
  return j;
}

FinishedEvent FinishedEvent::fromJson(const Json& json) {
  const FieldReader o = eventFields(json, kName);
  FinishedEvent e;
  e.status = o.text("status");
  e.run = o.text("run");
  e.epochs = o.optionalInteger("epochs");
  e.bestValidationError = o.optionalNumber("best_validation_error");
  e.parametersSha256 = o.text("parameters_sha256");
  e.message = o.text("message");
  e.alreadyCompleted = o.flag("already_completed");
  if (const auto v = o.object("early_stopped")) e.earlyStopped = EarlyStop::fromJson(v->json(), v->where());
  if (const auto v = o.object("scaling_verdict")) e.scalingVerdict = ScalingVerdict::fromJson(v->json(), v->where());
  o.forEach("gpus", [&](const Json& g, const Where& at) { e.gpus.push_back(GpuSummary::fromJson(g, at)); });
  if (const auto v = o.object("divergence")) e.divergence = Divergence::fromJson(v->json(), v->where());
  e.processPeakMemoryMb = o.optionalInteger("process_peak_memory_mb");
  return e;
}

// --- any event -------------------------------------------------------------------------------------------

std::string eventName(const Event& event) {
  return std::visit(
      [](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, UnknownEvent>) return e.name;
        else return T::kName;
      },
      event);
}

Json eventToJson(const Event& event) {
  return std::visit(
      [](const auto& e) -> Json {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, UnknownEvent>) return e.json;
        else return e.toJson();
      },
      event);
}

namespace {
template <typename T>
bool readAs(const std::string& name, const Json& json, std::optional<Event>& out) {
  if (name != T::kName) return false;
  out = T::fromJson(json);
  return true;
}
}  // namespace

Event eventFromJson(const Json& json) {
  const FieldReader o(json, "event");
  if (!o.has("event")) throw ReadError("event: no \"event\" name");
  const std::string name = o.text("event");
  std::optional<Event> e;
  readAs<StartedEvent>(name, json, e) || readAs<PlanEvent>(name, json, e) || readAs<IterationEvent>(name, json, e) ||
      readAs<EpochEvent>(name, json, e) || readAs<CheckpointEvent>(name, json, e) || readAs<PausedEvent>(name, json, e) ||
      readAs<ResumedEvent>(name, json, e) || readAs<ResumedFromCheckpointEvent>(name, json, e) ||
      readAs<WarningEvent>(name, json, e) || readAs<ErrorEvent>(name, json, e) || readAs<ProfileEvent>(name, json, e) ||
      readAs<FinishedEvent>(name, json, e) || readAs<InitialParametersEvent>(name, json, e);
  if (!e) e = UnknownEvent{name, json};
  return *e;
}

EventLine readEventLine(std::string_view line) {
  EventLine out;
  const Json json = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    out.kind = EventLine::Kind::NotJson;
    out.error = "not JSON";
    return out;
  }
  const auto name = json.is_object() ? json.find("event") : json.end();
  if (!json.is_object() || name == json.end() || !name->is_string()) {
    out.kind = EventLine::Kind::NotEvent;
    out.error = json.is_object() ? "no \"event\" name" : "not a JSON object";
    return out;
  }
  try {
    out.event = eventFromJson(json);
    out.kind = EventLine::Kind::Event;
  } catch (const ReadError& e) {
    out.kind = EventLine::Kind::Damaged;
    out.error = e.what();
  }
  return out;
}

}  // namespace netsmith::protocol
