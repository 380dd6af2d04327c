#include "engine/cli/progress_bar.h"

#include <cmath>
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
std::string percent(const Json& v) { return v.is_number() ? format("{}%", std::round(v.get<double>() * 10000) / 100) : "n/a"; }
std::string number(const Json& v, int digits = 4) {
  if (!v.is_number()) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v.get<double>());
  return buf;
}
}  // namespace

void ProgressBarSink::endBarLine() {
  if (m_barOpen) std::fputc('\n', m_out);
  m_barOpen = false;
}

void ProgressBarSink::publish(const Json& e) {
  const std::string kind = e.value("event", "");
  if (kind == "started") {
    std::string devices;
    int threads = 0;
    for (const Json& d : e["devices"]) {
      if (d.value("idle", false)) continue;
      devices += (devices.empty() ? "" : ", ") + d.value("id", std::string());
      threads = d.value("threads", 0);
    }
    const int64_t active = e.value("active_devices", int64_t{1});
    std::fprintf(m_out, "Training '%s' on %s (%d thread%s%s): %lld samples, batch %lld, %lld iterations per epoch, %lld epochs\n",
                 e.value("project", "").c_str(), devices.c_str(), threads, threads == 1 ? "" : "s",
                 active > 1 ? " each" : "", static_cast<long long>(e.value("train_samples", 0)),
                 static_cast<long long>(e.value("logical_batch", 0)),
                 static_cast<long long>(e.value("iterations_per_epoch", 0)), static_cast<long long>(e.value("max_epoch", 0)));
    if (active > 1)
      std::fprintf(m_out, "Data-parallel: logical batch %lld over %lld devices (lr_policy %s), learning rate %g\n",
                   static_cast<long long>(e.value("logical_batch", 0)), static_cast<long long>(active),
                   e.value("lr_policy", "").c_str(), e.value("effective_lr", 0.0));
    std::fprintf(m_out, "Run folder: %s\n", e.value("run", "").c_str());
    if (e.contains("device_change") && e["device_change"].is_object())  // Note [Resume on other devices]
      std::fprintf(m_out, "%s\n", e["device_change"].value("message", "").c_str());
    if (e.value("resumed", false) && e.value("start_epoch", 0) > e.value("max_epoch", 0))
      std::fprintf(m_out, "Resuming: the training had ended (%lld epochs); writing its parameters\n",
                   static_cast<long long>(e.value("max_epoch", 0)));
    else if (e.value("resumed", false))
      std::fprintf(m_out, "Resuming at epoch %lld, iteration %lld\n", static_cast<long long>(e.value("start_epoch", 0)),
                   static_cast<long long>(e.value("start_iteration", 0)));
    m_maxEpoch = e.value("max_epoch", 0);
  } else if (kind == "iteration") {
    const int64_t it = e.value("iteration", 0), total = std::max<int64_t>(e.value("iterations_per_epoch", 1), 1);
    const double frac = static_cast<double>(it) / total;
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(frac * kWidth);
    const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '-');
    // The data's share of the devices' step: assembling batches (reading, converting, augmenting).
    double data = 0, step = 0;
    if (e.contains("devices") && e["devices"].is_array())
      for (const Json& d : e["devices"]) {
        data += d.value("data_ms", 0.0);
        step += d.value("data_ms", 0.0) + d.value("compute_ms", 0.0) + d.value("wait_ms", 0.0);
      }
    const std::string line = format("epoch {}/{} [{}] {}/{} loss {} {} samples/s data {}% ETA {}", e.value("epoch", 0),
                                    m_maxEpoch, bar, it, total, number(e["loss"]),
                                    std::lround(e.value("samples_per_s", 0.0)), std::lround(step > 0 ? 100 * data / step : 0),
                                    formatDuration(e.value("eta_s", 0.0)));
    if (m_interactive) {
      std::fprintf(m_out, "\r%-100s", line.c_str());
      m_barOpen = true;
    } else {
      const int decile = static_cast<int>(frac * 10);
      if (decile != m_lastDecile) std::fprintf(m_out, "%s\n", line.c_str());
      m_lastDecile = decile;
    }
  } else if (kind == "epoch") {
    endBarLine();
    m_lastDecile = -1;
    std::fprintf(m_out, "epoch %lld/%lld: train loss %s, validation loss %s, validation error %s (%s)\n",
                 static_cast<long long>(e.value("epoch", 0)), static_cast<long long>(m_maxEpoch),
                 number(e["train_loss"]).c_str(), number(e["validation_loss"]).c_str(),
                 percent(e["validation_error"]).c_str(), formatDuration(e.value("seconds", 0.0)).c_str());
    const double dataShare = e.contains("scaling") && e["scaling"].is_object() ? e["scaling"].value("data_share", 0.0) : 0.0;
    if (dataShare >= kDataBoundShare)
      std::fprintf(m_out,
                   "  the devices spent %.0f%% of their step assembling batches (reading, decoding, augmenting): the "
                   "data, not the network, limits the speed\n",
                   100 * dataShare);
  } else if (kind == "warning" || kind == "error") {
    endBarLine();
    std::fprintf(stderr, "netsmith-cli: %s: %s\n", kind.c_str(), e.value("message", "").c_str());
  } else if (kind == "paused" || kind == "resumed") {
    endBarLine();
    std::fprintf(m_out, "%s at epoch %lld, iteration %lld\n", kind.c_str(), static_cast<long long>(e.value("epoch", 0)),
                 static_cast<long long>(e.value("iteration", 0)));
  } else if (kind == "finished") {
    endBarLine();
    if (e.value("already_completed", false)) std::fprintf(m_out, "%s\n", e.value("message", "").c_str());
    if (e.contains("early_stopped") && e["early_stopped"].is_object())  // Note [Early stopping]
      std::fprintf(m_out, "%s\n", e["early_stopped"].value("message", "").c_str());
    std::fprintf(m_out, "Finished: %s", e.value("status", "").c_str());
    if (e.contains("best_validation_error") && e["best_validation_error"].is_number())
      std::fprintf(m_out, ", best validation error %s (accuracy %s)", percent(e["best_validation_error"]).c_str(),
                   percent(1.0 - e["best_validation_error"].get<double>()).c_str());
    std::fprintf(m_out, "\n");
    if (e.contains("scaling_verdict") && e["scaling_verdict"].is_object())
      std::fprintf(m_out, "Scaling: %s\n", e["scaling_verdict"].value("text", "").c_str());
    if (e.contains("gpus") && e["gpus"].is_array())
      for (const Json& g : e["gpus"]) {
        std::fprintf(m_out, "%s:", g.value("id", "").c_str());
        if (g.contains("max_temperature_c") && g["max_temperature_c"].is_number())
          std::fprintf(m_out, " peak %.0f °C", g["max_temperature_c"].get<double>());
        if (g.contains("mean_power_w") && g["mean_power_w"].is_number())
          std::fprintf(m_out, ", mean power %.0f W", g["mean_power_w"].get<double>());
        std::fprintf(m_out, "\n");
      }
    if (e.contains("parameters_sha256")) std::fprintf(m_out, "parameters_sha256 %s\n", e.value("parameters_sha256", "").c_str());
    if (e.contains("run")) std::fprintf(m_out, "Run folder: %s\n", e.value("run", "").c_str());
  }
  std::fflush(m_out);
}

}  // namespace netsmith::cli
