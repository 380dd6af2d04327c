#include "gui/run/engine_event.h"
#include "gui/document/qt_text.h"

#include <QFileInfo>
#include <QLocale>
#include <QObject>

namespace netsmith::gui {
namespace {

double orNoValue(const std::optional<double>& v) { return v.value_or(kNoValue); }

StartedEvent adapt(const protocol::StartedEvent& e) {
  StartedEvent s;
  s.run = qs(e.run);
  s.project = qs(e.project);
  s.plan = e.plan;
  s.maxEpoch = e.plan.maxEpoch;
  s.trainSamples = e.plan.trainSamples;
  s.validationSamples = e.validationSamples;
  s.parameters = e.parameters;
  s.resumed = e.resumed;
  if (e.deviceChange) s.deviceChange = qs(e.deviceChange->message);
  return s;
}

IterationEvent adapt(const protocol::IterationEvent& e) {
  IterationEvent s{e.epoch, e.iteration, e.iterationsPerEpoch, e.globalIteration, e.loss, e.lr, e.samplesPerS, e.etaS, {}};
  for (const protocol::DeviceFigures& d : e.devices)
    s.devices.push_back({qs(d.id), d.computeMs, d.syncMs, d.waitMs, d.utilization, d.memoryMb, d.overlapMs,
                         orNoValue(d.temperatureC), orNoValue(d.powerW), d.dataMs});
  s.elapsedS = e.elapsedS;
  return s;
}

EpochEvent adapt(const protocol::EpochEvent& e) {
  EpochEvent s{e.epoch, e.trainLoss, orNoValue(e.validationLoss), orNoValue(e.validationError), e.seconds, e.lr, {}};
  if (e.scaling)
    s.scaling = EpochScaling{e.scaling->samplesPerS, e.scaling->communicationShare, e.scaling->speedupEstimate,
                             e.scaling->dataShare};
  return s;
}

FinishedEvent adapt(const protocol::FinishedEvent& e) {
  FinishedEvent s;
  s.status = qs(e.status);
  s.run = qs(e.run);
  s.epochs = e.epochs.value_or(0);
  s.bestValidationError = orNoValue(e.bestValidationError);
  s.parametersSha256 = qs(e.parametersSha256);
  s.message = qs(e.message);
  if (e.scalingVerdict) s.scalingVerdict = qs(e.scalingVerdict->text);
  for (const protocol::GpuSummary& g : e.gpus) {
    QString line = qs(g.id) + QLatin1Char(':');
    if (g.maxTemperatureC) line += QStringLiteral(" peak %1 °C").arg(*g.maxTemperatureC, 0, 'f', 0);
    if (g.meanPowerW) line += QStringLiteral(", mean power %1 W").arg(*g.meanPowerW, 0, 'f', 0);
    s.gpuSummaries << line;
  }
  if (e.divergence && !e.divergence->block.empty()) {
    const protocol::Divergence& d = *e.divergence;
    s.divergedBlock = qs(d.block);
    QString reason = QStringLiteral("%1 at iteration %2 (%3 pass: %4).")
                         .arg(qs(d.reason)).arg(d.globalIteration).arg(qs(d.pass), qs(d.finding));
    for (const std::string& a : d.advice) reason += QStringLiteral("\n• %1").arg(qs(a));
    s.divergedReason = reason;
  }
  return s;
}

}  // namespace

QString describeDataSet(const protocol::PlannedDataSet& d) {
  QStringList dims;
  for (int64_t n : d.shape) dims << QString::number(n);
  const QString kept = d.storage == "streamed"
                           ? QObject::tr("streamed from %1").arg(QFileInfo(qs(d.source)).fileName())
                           : QObject::tr("held in memory (%1, %2)")
                                 .arg(d.storage == "bytes" ? QObject::tr("bytes") : QObject::tr("float32"),
                                      QLocale().formattedDataSize(d.memoryBytes));
  return QObject::tr("%1: %2 × %3, %4 on disk, %5")
      .arg(qs(d.role), QLocale().toString(static_cast<qlonglong>(d.samples)), dims.join(QStringLiteral("×")),
           QLocale().formattedDataSize(d.diskBytes), kept);
}

EngineEvent toEngineEvent(const protocol::Event& event) {
  using Kind = ControlEvent::Kind;
  return std::visit(
      [](const auto& e) -> EngineEvent {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, protocol::StartedEvent> || std::is_same_v<T, protocol::IterationEvent> ||
                      std::is_same_v<T, protocol::EpochEvent> || std::is_same_v<T, protocol::FinishedEvent>)
          return adapt(e);
        else if constexpr (std::is_same_v<T, protocol::PlanEvent>) return PlanEvent{e.plan};
        else if constexpr (std::is_same_v<T, protocol::CheckpointEvent>) return CheckpointEvent{e.epoch, e.iteration, qs(e.path)};
        else if constexpr (std::is_same_v<T, protocol::PausedEvent>) return ControlEvent{Kind::Paused, e.epoch, e.iteration, {}, {}};
        else if constexpr (std::is_same_v<T, protocol::ResumedEvent>) return ControlEvent{Kind::Resumed, e.epoch, e.iteration, {}, {}};
        else if constexpr (std::is_same_v<T, protocol::ResumedFromCheckpointEvent>)
          return ControlEvent{Kind::ResumedFromCheckpoint, e.epoch, e.iteration, qs(e.path),
                              e.deviceChange ? qs(e.deviceChange->message) : QString()};
        else if constexpr (std::is_same_v<T, protocol::WarningEvent>) return MessageEvent{false, qs(e.message)};
        else if constexpr (std::is_same_v<T, protocol::ErrorEvent>) return MessageEvent{true, qs(e.message)};
        else if constexpr (std::is_same_v<T, protocol::ProfileEvent>) return UnknownEvent{QString::fromLatin1(T::kName)};
        else if constexpr (std::is_same_v<T, protocol::InitialParametersEvent>) {
          InitialParametersEvent out;
          for (const std::string& line : e.report.lines()) out.lines << qs(line);
          out.loaded = e.report.loadedBlobs();
          out.fresh = e.report.newBlobs();
          out.reinitialized = e.report.reshapedBlobs();
          out.unused = static_cast<long long>(e.report.unused.size());
          return out;
        }
        else return UnknownEvent{qs(e.name)};
      },
      event);
}

EngineLine readEngineLine(const QByteArray& line) {
  const protocol::EventLine read = protocol::readEventLine(std::string_view(line.constData(), static_cast<size_t>(line.size())));
  EngineLine out;
  out.kind = read.kind;
  if (read.event) out.event = toEngineEvent(*read.event);
  out.error = QString::fromStdString(read.error);
  return out;
}

std::optional<EngineEvent> parseEngineEvent(const QByteArray& line, QString* error) {
  EngineLine read = readEngineLine(line);
  if (!read.event && error) *error = read.error;
  return std::move(read.event);
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
        else if constexpr (std::is_same_v<T, InitialParametersEvent>) return QStringLiteral("initial_parameters");
        else return e.type;
      },
      event);
}

}  // namespace netsmith::gui
