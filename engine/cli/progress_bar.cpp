#include "engine/cli/progress_bar.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "engine/core/error.h"

namespace netsmith::cli {

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

namespace {
// An epoch whose devices spent this much of their step on the data gets a line saying so.
constexpr double kDataBoundShare = 0.25;
std::string percent(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? format("{}%", std::round(*v * 10000) / 100) : "n/a";
}
std::string number(double v, int digits = 4) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string number(const std::optional<double>& v) { return v ? number(*v) : "n/a"; }
double orZero(double v) { return std::isfinite(v) ? v : 0.0; }
}  // namespace

void ProgressBarSink::endBarLine() {
  if (m_barOpen) std::fputc('\n', m_out);
  m_barOpen = false;
}

void ProgressBarSink::publish(const Json& json) {
  // The event through the protocol's one reader (engine/protocol/events.h), as the GUI reads it.
  protocol::Event event;
  try {
    event = protocol::eventFromJson(json);
  } catch (const protocol::ReadError& e) {
    endBarLine();
    std::fprintf(stderr, "netsmith-cli: warning: an event the progress bar cannot read: %s\n", e.what());
    return;
  }
  if (const auto* e = std::get_if<protocol::StartedEvent>(&event)) showStarted(*e);
  else if (const auto* e = std::get_if<protocol::IterationEvent>(&event)) showIteration(*e);
  else if (const auto* e = std::get_if<protocol::EpochEvent>(&event)) showEpoch(*e);
  else if (const auto* e = std::get_if<protocol::FinishedEvent>(&event)) showFinished(*e);
  else if (const auto* e = std::get_if<protocol::InitialParametersEvent>(&event)) {
    endBarLine();  // Note [Initial parameters]: the report, layer by layer
    for (const std::string& line : e->report.lines()) std::fprintf(m_out, "%s\n", line.c_str());
  } else if (const auto* e = std::get_if<protocol::WarningEvent>(&event)) showMessage("warning", e->message);
  else if (const auto* e = std::get_if<protocol::ErrorEvent>(&event)) showMessage("error", e->message);
  else if (const auto* e = std::get_if<protocol::PausedEvent>(&event)) showPosition("paused", *e);
  else if (const auto* e = std::get_if<protocol::ResumedEvent>(&event)) showPosition("resumed", *e);
  std::fflush(m_out);
}

void ProgressBarSink::showStarted(const protocol::StartedEvent& e) {
  const protocol::TrainingPlan& plan = e.plan;
  std::string devices;
  int threads = 0;
  for (const protocol::PlannedDevice& d : plan.devices) {
    if (d.idle()) continue;
    devices += (devices.empty() ? "" : ", ") + d.id;
    threads = d.threads;
  }
  const int64_t active = plan.activeDevices;
  std::fprintf(m_out, "Training '%s' on %s (%d thread%s%s): %lld samples, batch %lld, %lld iteration%s per epoch, %lld epoch%s\n",
               e.project.c_str(), devices.c_str(), threads, threads == 1 ? "" : "s", active > 1 ? " each" : "",
               static_cast<long long>(plan.trainSamples), static_cast<long long>(plan.logicalBatch),
               static_cast<long long>(plan.iterationsPerEpoch), plan.iterationsPerEpoch == 1 ? "" : "s",
               static_cast<long long>(plan.maxEpoch), plan.maxEpoch == 1 ? "" : "s");
  if (active > 1)
    std::fprintf(m_out, "Data-parallel: logical batch %lld over %lld devices (lr_policy %s), learning rate %g\n",
                 static_cast<long long>(plan.logicalBatch), static_cast<long long>(active), plan.lrPolicy.c_str(),
                 plan.effectiveLr);
  std::fprintf(m_out, "Run folder: %s\n", e.run.c_str());
  if (e.deviceChange) std::fprintf(m_out, "%s\n", e.deviceChange->message.c_str());  // Note [Resume on other devices]
  if (e.resumed && e.startEpoch > plan.maxEpoch)
    std::fprintf(m_out, "Resuming: the training had ended (%lld epochs); writing its parameters\n",
                 static_cast<long long>(plan.maxEpoch));
  else if (e.resumed)
    std::fprintf(m_out, "Resuming at epoch %lld, iteration %lld\n", static_cast<long long>(e.startEpoch),
                 static_cast<long long>(e.startIteration));
  m_maxEpoch = plan.maxEpoch;
}

void ProgressBarSink::showIteration(const protocol::IterationEvent& e) {
  const int64_t it = e.iteration, total = std::max<int64_t>(e.iterationsPerEpoch, 1);
  const double frac = static_cast<double>(it) / static_cast<double>(total);
  constexpr int kWidth = 24;
  const int filled = std::clamp(static_cast<int>(frac * kWidth), 0, kWidth);
  const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '-');
  // The data's share of the devices' step: assembling batches (reading, converting, augmenting).
  double data = 0, step = 0;
  for (const protocol::DeviceFigures& d : e.devices) {
    data += orZero(d.dataMs);
    step += orZero(d.dataMs) + orZero(d.computeMs) + orZero(d.waitMs);
  }
  const std::string line = format("epoch {}/{} [{}] {}/{} loss {} {} samples/s data {}% ETA {}", e.epoch, m_maxEpoch, bar,
                                  it, total, number(e.loss), std::lround(orZero(e.samplesPerS)),
                                  std::lround(step > 0 ? 100 * data / step : 0), formatDuration(orZero(e.etaS)));
  if (m_interactive) {
    std::fprintf(m_out, "\r%-100s", line.c_str());
    m_barOpen = true;
  } else {
    const int decile = static_cast<int>(frac * 10);
    if (decile != m_lastDecile) std::fprintf(m_out, "%s\n", line.c_str());
    m_lastDecile = decile;
  }
}

void ProgressBarSink::showEpoch(const protocol::EpochEvent& e) {
  endBarLine();
  m_lastDecile = -1;
  std::fprintf(m_out, "epoch %lld/%lld: train loss %s, validation loss %s, validation error %s (%s)\n",
               static_cast<long long>(e.epoch), static_cast<long long>(m_maxEpoch), number(e.trainLoss).c_str(),
               number(e.validationLoss).c_str(), percent(e.validationError).c_str(),
               formatDuration(orZero(e.seconds)).c_str());
  const double dataShare = e.scaling ? orZero(e.scaling->dataShare) : 0.0;
  if (dataShare >= kDataBoundShare)
    std::fprintf(m_out,
                 "  the devices spent %.0f%% of their step assembling batches (reading, decoding, augmenting): the "
                 "data, not the network, limits the speed\n",
                 100 * dataShare);
}

void ProgressBarSink::showMessage(const char* kind, const std::string& message) {
  endBarLine();
  std::fprintf(stderr, "netsmith-cli: %s: %s\n", kind, message.c_str());
}

void ProgressBarSink::showPosition(const char* kind, const protocol::RunPosition& at) {
  endBarLine();
  std::fprintf(m_out, "%s at epoch %lld, iteration %lld\n", kind, static_cast<long long>(at.epoch),
               static_cast<long long>(at.iteration));
}

void ProgressBarSink::showFinished(const protocol::FinishedEvent& e) {
  endBarLine();
  if (e.alreadyCompleted) std::fprintf(m_out, "%s\n", e.message.c_str());
  if (e.earlyStopped) std::fprintf(m_out, "%s\n", e.earlyStopped->message.c_str());  // Note [Early stopping]
  std::fprintf(m_out, "Finished: %s", e.status.c_str());
  if (e.bestValidationError && std::isfinite(*e.bestValidationError))
    std::fprintf(m_out, ", best validation error %s (accuracy %s)", percent(e.bestValidationError).c_str(),
                 percent(1.0 - *e.bestValidationError).c_str());
  std::fprintf(m_out, "\n");
  if (e.scalingVerdict) std::fprintf(m_out, "Scaling: %s\n", e.scalingVerdict->text.c_str());
  for (const protocol::GpuSummary& g : e.gpus) {
    std::fprintf(m_out, "%s:", g.id.c_str());
    if (g.maxTemperatureC) std::fprintf(m_out, " peak %.0f °C", *g.maxTemperatureC);
    if (g.meanPowerW) std::fprintf(m_out, ", mean power %.0f W", *g.meanPowerW);
    std::fprintf(m_out, "\n");
  }
  if (e.epochs) std::fprintf(m_out, "parameters_sha256 %s\n", e.parametersSha256.c_str());
  if (!e.run.empty()) std::fprintf(m_out, "Run folder: %s\n", e.run.c_str());
}

}  // namespace netsmith::cli
