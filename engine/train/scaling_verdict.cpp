#include "engine/train/scaling_verdict.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace netsmith {

namespace fs = std::filesystem;

namespace {

std::string printf1(const char* fmt, double v) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, v);
  return text;
}

}  // namespace

Json scalingVerdict(const ScalingInput& in) {
  const bool measured = in.singleDeviceSamplesPerS && *in.singleDeviceSamplesPerS > 0;
  const double single = measured                ? *in.singleDeviceSamplesPerS
                        : in.computeSeconds > 0 ? in.samplesPerS * in.wallSeconds / in.computeSeconds
                                                : 0.0;
  const double speedup = single > 0 ? in.samplesPerS / single : 0.0;
  const double efficiency = in.devices > 0 ? speedup / in.devices : 0.0;
  const double step = in.computeSeconds + in.waitSeconds;
  const double share = step > 0 ? in.syncSeconds / step : 0.0;
  const double hidden = in.syncSeconds > 0 ? std::clamp((in.syncSeconds - in.waitSeconds) / in.syncSeconds, 0.0, 1.0) : 0.0;

  const std::string unit = in.gpu ? "GPU" : "CPU worker";
  std::string text = std::to_string(in.devices) + " " + unit + "s: " + (measured ? "" : "about ") +
                     printf1("%.2f", speedup) + "× one " + unit + "'s samples/s (" + printf1("%.0f", 100 * efficiency) +
                     "%";
  text += measured ? ", against run " + in.baselineRun + ")"
                   : ", estimated from the devices' compute time: no single-" + unit + " run of this project to compare with)";
  text += "; all-reduce " + printf1("%.0f", 100 * share) + "% of the step, " + printf1("%.0f", 100 * hidden) +
          "% of it hidden behind the backward pass";
  return {{"devices", in.devices},
          {"samples_per_s", in.samplesPerS},
          {"single_device_samples_per_s", single},
          {"single_device_measured", measured},
          {"baseline_run", measured ? Json(in.baselineRun) : Json(nullptr)},
          {"speedup", speedup},
          {"efficiency", efficiency},
          {"allreduce_share", share},
          {"allreduce_hidden", hidden},
          {"text", text}};
}

std::optional<double> lastSingleDeviceSamplesPerS(const fs::path& runsRoot, const fs::path& exclude,
                                                  const std::string& backend, int64_t batchPerDevice,
                                                  std::string* runName) {
  std::error_code ec;
  std::optional<double> best;
  fs::file_time_type bestTime{};
  for (const auto& entry : fs::directory_iterator(runsRoot, ec)) {
    if (!entry.is_directory(ec) || fs::equivalent(entry.path(), exclude, ec)) continue;
    const fs::path settings = entry.path() / "run.json";
    std::ifstream in(settings);
    if (!in) continue;
    const Json run = Json::parse(in, nullptr, false);
    if (!run.is_object() || !run.contains("result") || !run["result"].is_object()) continue;
    const Json& r = run["result"];
    if (r.value("status", "") != "completed" || r.value("devices", 0) != 1 || r.value("backend", "") != backend ||
        r.value("batch_per_device", int64_t{-1}) != batchPerDevice || !r.contains("samples_per_s") ||
        !r["samples_per_s"].is_number() || r["samples_per_s"].get<double>() <= 0)
      continue;
    const auto when = fs::last_write_time(settings, ec);
    if (ec || (best && when <= bestTime)) continue;
    best = r["samples_per_s"].get<double>();
    bestTime = when;
    if (runName) *runName = entry.path().filename().string();
  }
  return best;
}

}  // namespace netsmith
