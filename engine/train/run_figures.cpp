#include "engine/train/run_figures.h"

#include "engine/monitor/process_stats.h"

#include <algorithm>

#include "engine/core/seconds_since.h"
#include "engine/monitor/process_stats.h"
#include "engine/train/job_channel.h"
#include "engine/train/scaling_verdict.h"

namespace netsmith {
namespace {

// One worker's step as the processes report it to the leader: [compute, sync, wait, busy
// seconds, memory bytes, temperature °C, power W, data] (°C and W null without sensors).
Json stepReport(const StepFigures& f, double busy, int64_t memoryBytes, const DeviceSensors& sensors) {
  return Json::array({f.computeSeconds, f.syncSeconds, f.waitSeconds, busy, memoryBytes,
                      optionalJson(sensors.temperatureC), optionalJson(sensors.powerW), f.dataSeconds});
}

std::optional<double> optionalNumber(const Json& v) {
  return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
}

}  // namespace

Json optionalJson(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

void SensorTotals::add(const DeviceSensors& s) {
  if (s.temperatureC) maxTemperatureC = std::max(maxTemperatureC.value_or(*s.temperatureC), *s.temperatureC);
  if (s.memoryUsedPeakMb) peakMemoryMb = std::max(peakMemoryMb.value_or(0), *s.memoryUsedPeakMb);
  if (s.powerW) {
    powerSum += *s.powerW;
    ++powerSamples;
  }
}

void RunFigures::start(size_t localWorkers, const std::vector<DevicePlan>& jobWorkers) {
  m_started = Clock::now();
  m_jobWorkers = jobWorkers;
  const size_t total = jobWorkers.size();
  m_step.assign(localWorkers, {});
  m_localBusy.assign(localWorkers, 0.0);
  m_localSensors.assign(localWorkers, {});
  m_busy.assign(total, 0.0);
  m_sensors.assign(total, {});
  m_sensorTotals.assign(total, {});
  m_runTotals.assign(total, {});
  m_busyAtEvent.assign(total, 0.0);
  m_memoryBytes.assign(total, 0.0);
  m_sinceEvent.assign(total, {});
  m_epochTotals.assign(total, {});
}

void RunFigures::workerStepped(size_t i, const StepFigures& step, const DeviceContext& device) {
  m_step[i] = step;
  m_localBusy[i] = device.busySeconds();
  m_localSensors[i] = device.sensors();
}

void RunFigures::workerStarted(size_t i, const DeviceContext& device) { m_localBusy[i] = device.busySeconds(); }

void RunFigures::add(size_t g, const StepFigures& figures, double busy, const DeviceSensors& sensors) {
  m_sinceEvent[g].add(figures);
  m_epochTotals[g].add(figures);
  m_runTotals[g].add(figures);
  m_busy[g] = busy;
  m_sensors[g] = sensors;
  m_sensorTotals[g].add(sensors);
}

void RunFigures::recordFinalMemory(const std::vector<std::unique_ptr<DeviceContext>>& contexts) {
  if (!m_localMemory || contexts.size() != m_sensorTotals.size()) return;
  for (size_t w = 0; w < contexts.size(); ++w) {
    if (!contexts[w]) continue;
    DeviceSensors s = contexts[w]->sensors();
    if (const auto now = contexts[w]->memoryInUseBytes())
      s.memoryUsedPeakMb = std::max(s.memoryUsedPeakMb.value_or(0), *now >> 20);
    s.temperatureC.reset();  // the peak only: temperature and power were counted per iteration
    s.powerW.reset();
    m_sensorTotals[w].add(s);
  }
}

double RunFigures::gatherStep(JobChannel& job, const std::vector<std::unique_ptr<Replica>>& replicas) {
  double localLoss = 0.0;
  for (const StepFigures& s : m_step) localLoss += s.lossSum;
  if (job.processes() == 1) {
    // Note [Iteration report]: the same figures the report would carry, without the JSON.
    m_localMemory = true;
    for (size_t w = 0; w < m_step.size(); ++w) {
      const StepFigures& s = m_step[w];
      add(w, {0.0, s.computeSeconds, s.syncSeconds, s.waitSeconds, s.dataSeconds}, m_localBusy[w], m_localSensors[w]);
    }
    return 0.0 + localLoss;  // as the sum over one process's report
  }
  // Every process reports its workers' figures to the leader, in global rank order.
  Json report = {{"loss", 0.0}, {"workers", Json::array()}};
  for (size_t w = 0; w < m_step.size(); ++w)
    report["workers"].push_back(stepReport(m_step[w], m_localBusy[w], replicas[w]->memoryBytes(), m_localSensors[w]));
  report["loss"] = localLoss;
  const std::vector<Json> reports = job.gather(report);
  double lossSum = 0.0;
  size_t g = 0;
  for (const Json& r : reports) {
    lossSum += r.at("loss").get<double>();
    for (const Json& f : r.at("workers")) {
      add(g, {0.0, f[0].get<double>(), f[1].get<double>(), f[2].get<double>(), f[7].get<double>()}, f[3].get<double>(),
          {optionalNumber(f[5]), optionalNumber(f[6])});
      m_memoryBytes[g] = f[4].get<double>();
      ++g;
    }
  }
  return lossSum;
}

void RunFigures::iterationTimed(double stepSeconds) {
  m_secondsPerIteration = m_secondsPerIteration == 0 ? stepSeconds : 0.98 * m_secondsPerIteration + 0.02 * stepSeconds;
}

void RunFigures::trained(int64_t samples, double stepSeconds) {
  m_epochTrainWall += stepSeconds;
  m_epochTrainSamples += samples;
  m_runTrainWall += stepSeconds;
  m_runTrainSamples += samples;
  m_samplesSinceEvent += samples;
}

void RunFigures::resetEventWindow() {
  m_lastEvent = Clock::now();
  m_samplesSinceEvent = 0;
  m_sinceEvent.assign(m_sinceEvent.size(), {});
  m_busyAtEvent = m_busy;
}

void RunFigures::startEpoch() {
  resetEventWindow();
  m_epochTotals.assign(m_epochTotals.size(), {});
  m_epochTrainWall = 0;
  m_epochTrainSamples = 0;
}

double RunFigures::secondsSinceEvent() const { return secondsSince(m_lastEvent); }

std::vector<protocol::DeviceFigures> RunFigures::deviceFigures(double wall) const {
  std::vector<protocol::DeviceFigures> devices;
  for (size_t w = 0; w < m_jobWorkers.size(); ++w) {
    const WorkerTotals& t = m_sinceEvent[w];
    const double per = t.iterations ? 1000.0 / static_cast<double>(t.iterations) : 0.0;
    const double busy = m_busy[w] - m_busyAtEvent[w];
    const double utilization = wall > 0 ? std::clamp(busy / (wall * m_jobWorkers[w].threads), 0.0, 1.0) : 0.0;
    protocol::DeviceFigures d;
    d.id = m_jobWorkers[w].id;
    d.computeMs = t.compute * per;
    d.syncMs = t.sync * per;
    d.overlapMs = std::max(0.0, t.sync - t.wait) * per;
    d.waitMs = t.wait * per;
    d.dataMs = t.data * per;
    d.utilization = utilization;
    d.memoryMb = m_memoryBytes[w] / (1024.0 * 1024.0);
    d.temperatureC = m_sensors[w].temperatureC;
    d.powerW = m_sensors[w].powerW;
    devices.push_back(std::move(d));
  }
  return devices;
}

protocol::IterationEvent RunFigures::iterationEvent(const IterationPosition& at,
                                                    const std::vector<std::unique_ptr<Replica>>& replicas) {
  if (m_localMemory)
    for (size_t w = 0; w < replicas.size(); ++w) m_memoryBytes[w] = static_cast<double>(replicas[w]->memoryBytes());
  const double wall = secondsSinceEvent();
  protocol::IterationEvent e;
  e.epoch = at.epoch + 1;
  e.iteration = at.iteration;
  e.iterationsPerEpoch = at.iterationsPerEpoch;
  e.globalIteration = at.globalIteration;
  e.loss = at.loss;
  e.lr = at.lr;
  e.samplesPerS = wall > 0 ? static_cast<double>(m_samplesSinceEvent) / wall : 0.0;
  e.etaS = m_secondsPerIteration * static_cast<double>(at.remainingIterations);
  e.processMemoryMb = processResidentMb();
  e.elapsedS = std::chrono::duration<double>(Clock::now() - m_started).count();
  e.devices = deviceFigures(wall);
  return e;
}

// Note [Scaling summary]: per epoch, from the workers' own clocks. communication_share is the
// part of the workers' step time spent blocked on the all-reduce (communication not hidden
// behind backward, plus waiting for the slowest device); speedup_estimate is the workers'
// summed compute time over the epoch's training wall time: how much faster the devices were
// together than one of them alone doing all the work at the same per-sample speed.
protocol::EpochScaling RunFigures::scalingSummary() const {
  // compute: the devices' own work, the batch's assembly (data) included.
  double compute = 0, wait = 0, sync = 0, data = 0;
  for (const auto& t : m_epochTotals) {
    compute += t.compute + t.data;
    data += t.data;
    wait += t.wait;
    sync += t.sync;
  }
  const double wall = m_epochTrainWall;
  protocol::EpochScaling s;
  s.devices = static_cast<int64_t>(m_jobWorkers.size());
  s.samplesPerS = wall > 0 ? static_cast<double>(m_epochTrainSamples) / wall : 0.0;
  s.communicationShare = compute + wait > 0 ? wait / (compute + wait) : 0.0;
  s.dataShare = compute + wait > 0 ? data / (compute + wait) : 0.0;
  s.syncSeconds = sync;
  s.speedupEstimate = wall > 0 ? compute / wall : 0.0;
  return s;
}

Json RunFigures::runResult(const std::string& status, const std::string& parametersSha256,
                           const std::filesystem::path& runDir, int64_t batchPerDevice) const {
  const int devices = static_cast<int>(m_jobWorkers.size());
  const bool gpu = m_jobWorkers[0].id.rfind("cuda:", 0) == 0;
  const double samplesPerS = m_runTrainWall > 0 ? static_cast<double>(m_runTrainSamples) / m_runTrainWall : 0.0;
  Json r = {{"status", status},
            {"devices", devices},
            {"backend", gpu ? "cuda" : "cpu"},
            {"batch_per_device", batchPerDevice},
            {"samples_per_s", samplesPerS},
            {"parameters_sha256", parametersSha256}};
  // Note [Memory before launch]: the measured side (the leader's process; GPUs below).
  if (const int64_t peak = processPeakResidentBytes(); peak > 0) r["process_peak_memory_mb"] = peak >> 20;
  if (devices > 1 && m_runTrainSamples > 0) {
    ScalingInput in;
    in.devices = devices;
    in.gpu = gpu;
    in.samplesPerS = samplesPerS;
    in.wallSeconds = m_runTrainWall;
    for (const WorkerTotals& t : m_runTotals) {
      in.computeSeconds += t.compute + t.data;
      in.syncSeconds += t.sync;
      in.waitSeconds += t.wait;
    }
    in.singleDeviceSamplesPerS =
        lastSingleDeviceSamplesPerS(runDir.parent_path(), runDir, r["backend"], batchPerDevice, &in.baselineRun);
    r["scaling_verdict"] = scalingVerdict(in);
  }
  Json gpus = Json::array();
  for (size_t w = 0; w < m_sensorTotals.size(); ++w) {
    const SensorTotals& s = m_sensorTotals[w];
    if (!s.maxTemperatureC && !s.powerSamples && !s.peakMemoryMb) continue;
    gpus.push_back({{"id", m_jobWorkers[w].id},
                    {"max_temperature_c", optionalJson(s.maxTemperatureC)},
                    {"mean_power_w", s.powerSamples ? Json(s.powerSum / static_cast<double>(s.powerSamples)) : Json(nullptr)},
                    {"peak_memory_mb", s.peakMemoryMb ? Json(*s.peakMemoryMb) : Json(nullptr)}});
  }
  if (!gpus.empty()) r["gpus"] = gpus;
  return r;
}

}  // namespace netsmith
