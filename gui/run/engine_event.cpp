#include "gui/run/engine_event.h"

#include <QFileInfo>
#include <QLocale>
#include <QObject>

#include <nlohmann/json.hpp>

namespace netsmith::gui {
namespace {

using Json = nlohmann::json;

// Readers that treat a missing key, null or a value of the wrong type as absent: the stream is
// written by another program, possibly a newer or a broken one, and must never crash the GUI.
double number(const Json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : kNoValue;
}
long long integer(const Json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return std::isfinite(v) ? static_cast<long long>(v) : 0;
}
QString text(const Json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}
bool flag(const Json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}
const Json& array(const Json& o, const char* key) {
  static const Json empty = Json::array();
  const auto it = o.find(key);
  return it != o.end() && it->is_array() ? *it : empty;
}

TrainingPlan readPlan(const Json& o) {
  TrainingPlan plan;
  for (const Json& d : array(o, "devices")) {
    if (!d.is_object()) continue;
    plan.devices.push_back({text(d, "id"), text(d, "name"), static_cast<int>(integer(d, "threads")), number(d, "load"),
                            integer(d, "batch"), text(d, "host")});
  }
  plan.lrPolicy = text(o, "lr_policy");
  plan.batchSize = integer(o, "batch_size");
  if (plan.batchSize == 0) plan.batchSize = integer(o, "batch_per_device");
  plan.logicalBatch = integer(o, "logical_batch");
  plan.iterationsPerEpoch = integer(o, "iterations_per_epoch");
  plan.baseLr = number(o, "base_lr");
  plan.effectiveLr = number(o, "effective_lr");
  plan.lrUpdateInterval = integer(o, "lr_update_interval");
  plan.warmupIterations = integer(o, "warmup_iterations");
  plan.deterministic = flag(o, "deterministic");
  plan.trainSamples = integer(o, "train_samples");
  plan.maxEpoch = integer(o, "max_epoch");
  plan.precision = text(o, "precision");
  for (const Json& d : array(o, "data")) {
    if (!d.is_object()) continue;
    QStringList dims;
    for (const Json& n : array(d, "shape"))
      if (n.is_number()) dims << QString::number(n.get<long long>());
    const QString storage = text(d, "storage");
    const QString kept = storage == QLatin1String("streamed")
                             ? QObject::tr("streamed from %1").arg(QFileInfo(text(d, "source")).fileName())
                             : QObject::tr("held in memory (%1, %2)")
                                   .arg(storage == QLatin1String("bytes") ? QObject::tr("bytes") : QObject::tr("float32"),
                                        QLocale().formattedDataSize(integer(d, "memory_bytes")));
    plan.data << QObject::tr("%1: %2 × %3, %4 on disk, %5")
                     .arg(text(d, "role"), QLocale().toString(integer(d, "samples")), dims.join(QStringLiteral("×")),
                          QLocale().formattedDataSize(integer(d, "disk_bytes")), kept);
  }
  plan.memoryBytesNeeded = integer(o, "memory_bytes_needed");
  for (const Json& w : array(o, "warnings"))
    if (w.is_string()) plan.warnings << QString::fromStdString(w.get<std::string>());
  return plan;
}

EngineEvent readEvent(const std::string& type, const Json& o) {
  if (type == "started") {
    StartedEvent e;
    e.run = text(o, "run");
    e.project = text(o, "project");
    e.plan = readPlan(o);
    e.maxEpoch = integer(o, "max_epoch");
    e.trainSamples = integer(o, "train_samples");
    e.validationSamples = integer(o, "validation_samples");
    e.parameters = integer(o, "parameters");
    e.resumed = flag(o, "resumed");
    return e;
  }
  if (type == "iteration") {
    IterationEvent e;
    e.epoch = integer(o, "epoch");
    e.iteration = integer(o, "iteration");
    e.iterationsPerEpoch = integer(o, "iterations_per_epoch");
    e.globalIteration = integer(o, "global_iteration");
    e.loss = number(o, "loss");
    e.lr = number(o, "lr");
    e.samplesPerS = number(o, "samples_per_s");
    e.etaS = number(o, "eta_s");
    for (const Json& d : array(o, "devices")) {
      if (!d.is_object()) continue;
      e.devices.push_back({text(d, "id"), number(d, "compute_ms"), number(d, "sync_ms"), number(d, "wait_ms"),
                           number(d, "utilization"), number(d, "memory_mb"), number(d, "overlap_ms"),
                           number(d, "temperature_c"), number(d, "power_w"), number(d, "data_ms")});
    }
    return e;
  }
  if (type == "epoch") {
    EpochEvent e;
    e.epoch = integer(o, "epoch");
    e.trainLoss = number(o, "train_loss");
    e.validationLoss = number(o, "validation_loss");
    e.validationError = number(o, "validation_error");
    e.seconds = number(o, "seconds");
    e.lr = number(o, "lr");
    if (const auto it = o.find("scaling"); it != o.end() && it->is_object())
      e.scaling = EpochScaling{number(*it, "samples_per_s"), number(*it, "communication_share"),
                               number(*it, "speedup_estimate"), number(*it, "data_share")};
    return e;
  }
  if (type == "checkpoint") return CheckpointEvent{integer(o, "epoch"), integer(o, "iteration"), text(o, "path")};
  if (type == "paused" || type == "resumed" || type == "resumed_from_checkpoint") {
    const auto kind = type == "paused"    ? ControlEvent::Kind::Paused
                      : type == "resumed" ? ControlEvent::Kind::Resumed
                                          : ControlEvent::Kind::ResumedFromCheckpoint;
    return ControlEvent{kind, integer(o, "epoch"), integer(o, "iteration"), text(o, "path")};
  }
  if (type == "warning" || type == "error") return MessageEvent{type == "error", text(o, "message")};
  if (type == "finished") {
    FinishedEvent e;
    e.status = text(o, "status");
    e.run = text(o, "run");
    e.epochs = integer(o, "epochs");
    e.bestValidationError = number(o, "best_validation_error");
    e.parametersSha256 = text(o, "parameters_sha256");
    e.message = text(o, "message");
    if (const auto it = o.find("scaling_verdict"); it != o.end() && it->is_object()) e.scalingVerdict = text(*it, "text");
    for (const Json& g : array(o, "gpus")) {
      if (!g.is_object()) continue;
      QString line = text(g, "id") + QLatin1Char(':');
      if (hasValue(number(g, "max_temperature_c")))
        line += QStringLiteral(" peak %1 °C").arg(number(g, "max_temperature_c"), 0, 'f', 0);
      if (hasValue(number(g, "mean_power_w")))
        line += QStringLiteral(", mean power %1 W").arg(number(g, "mean_power_w"), 0, 'f', 0);
      e.gpuSummaries << line;
    }
    return e;
  }
  if (type == "plan") return PlanEvent{readPlan(o)};
  return UnknownEvent{QString::fromStdString(type)};
}

}  // namespace

std::optional<EngineEvent> parseEngineEvent(const QByteArray& line, QString* error) {
  const Json o = Json::parse(line.constBegin(), line.constEnd(), nullptr, /*allow_exceptions=*/false);
  auto fail = [&](const QString& why) -> std::optional<EngineEvent> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (o.is_discarded()) return fail(QStringLiteral("not JSON"));
  if (!o.is_object()) return fail(QStringLiteral("not a JSON object"));
  const auto type = o.find("event");
  if (type == o.end() || !type->is_string()) return fail(QStringLiteral("no \"event\" name"));
  return readEvent(type->get<std::string>(), o);
}

QString eventName(const EngineEvent& event) {
  return std::visit(
      [](const auto& e) -> QString {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, StartedEvent>) return QStringLiteral("started");
        else if constexpr (std::is_same_v<T, IterationEvent>) return QStringLiteral("iteration");
        else if constexpr (std::is_same_v<T, EpochEvent>) return QStringLiteral("epoch");
        else if constexpr (std::is_same_v<T, CheckpointEvent>) return QStringLiteral("checkpoint");
        else if constexpr (std::is_same_v<T, ControlEvent>)
          return e.kind == ControlEvent::Kind::Paused    ? QStringLiteral("paused")
                 : e.kind == ControlEvent::Kind::Resumed ? QStringLiteral("resumed")
                                                         : QStringLiteral("resumed_from_checkpoint");
        else if constexpr (std::is_same_v<T, MessageEvent>) return e.isError ? QStringLiteral("error") : QStringLiteral("warning");
        else if constexpr (std::is_same_v<T, FinishedEvent>) return QStringLiteral("finished");
        else if constexpr (std::is_same_v<T, PlanEvent>) return QStringLiteral("plan");
        else return e.type;
      },
      event);
}

}  // namespace netsmith::gui
