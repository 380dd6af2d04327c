#include "engine/monitor/utilization_sampler.h"

#include <algorithm>

namespace netsmith {

UtilizationSampler::UtilizationSampler(const Nvml& nvml, int index, std::chrono::milliseconds period)
    : m_nvml(nvml), m_index(index), m_period(period), m_lastSample(Clock::now()) {
  m_thread = std::thread([this] { run(); });
}

UtilizationSampler::~UtilizationSampler() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void UtilizationSampler::run() {
  std::unique_lock lock(m_mutex);
  while (!m_stopping) {
    lock.unlock();
    const auto sample = m_nvml.sample(m_index);  // the driver's time, outside the lock
    const auto now = Clock::now();
    lock.lock();
    if (sample) {
      m_busy += sample->utilization * std::chrono::duration<double>(now - m_lastSample).count();
      m_utilization = sample->utilization;
      const int64_t peak = std::max(m_sensors.memoryUsedPeakMb.value_or(0), sample->memoryUsedMb);
      m_sensors = {sample->temperatureC, sample->powerW, peak};
    } else {
      m_busy += m_utilization * std::chrono::duration<double>(now - m_lastSample).count();
    }
    m_lastSample = now;
    ++m_samples;
    m_wake.wait_for(lock, m_period, [this] { return m_stopping; });
  }
}

double UtilizationSampler::busySeconds() const {
  std::lock_guard lock(m_mutex);
  return m_busy + m_utilization * std::chrono::duration<double>(Clock::now() - m_lastSample).count();
}

DeviceSensors UtilizationSampler::sensors() const {
  std::lock_guard lock(m_mutex);
  return m_sensors;
}

int64_t UtilizationSampler::samples() const {
  std::lock_guard lock(m_mutex);
  return m_samples;
}

}  // namespace netsmith
