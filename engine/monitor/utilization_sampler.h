// UtilizationSampler: one GPU's NVML figures — utilization integrated into busy seconds,
// temperature and power — read on a thread of its own, so that a training step never waits for
// the driver (Note [Sensors off the step]).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/core/device_context.h"
#include "engine/monitor/nvml.h"

namespace netsmith {

// Note [Sensors off the step]
// A GPU worker reported its busy time and sensors after every step, and each report was four NVML
// queries (utilization, memory, temperature, power) on the worker's thread, between one step and
// the next: on the step's critical path, and an NVML query can take milliseconds on a busy driver.
// Now a sampler thread per GPU queries every `period` (NVML's own utilization counter is an
// average over 1/6 s to 1 s, so sampling faster adds nothing) and integrates busy seconds as
// before — each sample's utilization times the time since the previous sample. The worker reads
// the figures under a mutex only: the integral so far plus the latest utilization times the time
// since that sample, so busy seconds still grow smoothly between samples.
class UtilizationSampler {
 public:
  using Clock = std::chrono::steady_clock;
  // Samples GPU `index` of `nvml` (which outlives the sampler) every `period`, the first time at once.
  UtilizationSampler(const Nvml& nvml, int index, std::chrono::milliseconds period = std::chrono::milliseconds(100));
  ~UtilizationSampler();  // stops and joins the thread
  UtilizationSampler(const UtilizationSampler&) = delete;
  UtilizationSampler& operator=(const UtilizationSampler&) = delete;

  // Busy seconds since the sampler started; never queries NVML.
  double busySeconds() const;
  // Temperature and power at the latest sample (none before the first, or when the GPU has no sensor).
  DeviceSensors sensors() const;
  // Samples the sampler thread has taken (tests).
  int64_t samples() const;

 private:
  void run();

  const Nvml& m_nvml;
  const int m_index;
  const std::chrono::milliseconds m_period;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stopping = false;
  double m_busy = 0;            // Σ utilization × interval, up to m_lastSample
  double m_utilization = 0;     // of the latest sample, 0..1
  Clock::time_point m_lastSample;
  DeviceSensors m_sensors;
  int64_t m_samples = 0;
  std::thread m_thread;  // last: starts once the rest is set
};

}  // namespace netsmith
