// NVML of the simulated GPUs: the nvml_abi::Api entry points over SimulatedRuntime's devices, in
// PCI bus order as NVML numbers them. Utilization is the share of wall time the device's streams
// spent running operations since the previous sample; temperature follows it with a time
// constant of a few seconds (32 °C idle, 80 °C busy); power is 65 W idle to 350 W busy. The
// numbers are a model, there so that every per-device chart and summary has data to show.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "engine/backend/cuda/sim/simulated_runtime.h"
#include "engine/core/error.h"
#include "engine/monitor/nvml.h"

namespace netsmith::cuda {
namespace {

using Clock = std::chrono::steady_clock;

struct Sampler {
  Clock::time_point last = Clock::now();
  int64_t busyAtLast = 0;
  double utilization = 0;
  double temperature = 32;
};

sim::SimulatedRuntime* g_runtime = nullptr;
std::mutex g_mutex;
Sampler g_samplers[8];

sim::Device* deviceOf(nvml_abi::Device handle) {
  const auto index = reinterpret_cast<uintptr_t>(handle) - 1;
  if (!g_runtime || index >= static_cast<uintptr_t>(g_runtime->deviceCount())) return nullptr;
  return &g_runtime->deviceByPciIndex(static_cast<int>(index));
}

// Updates the device's sampler if the last sample is older than NVML's ~1/6 s period.
Sampler& sampled(sim::Device& d) {
  Sampler& s = g_samplers[d.index];
  const auto now = Clock::now();
  const double wall = std::chrono::duration<double>(now - s.last).count();
  if (wall >= 0.15) {
    const int64_t busy = d.busyNanoseconds.load();
    s.utilization = std::clamp(static_cast<double>(busy - s.busyAtLast) * 1e-9 / wall, 0.0, 1.0);
    const double target = 32.0 + 48.0 * s.utilization;
    s.temperature += (target - s.temperature) * (1.0 - std::exp(-wall / 4.0));
    s.busyAtLast = busy;
    s.last = now;
  }
  return s;
}

nvml_abi::Return init() { return nvml_abi::kSuccess; }
nvml_abi::Return shutdown() { return nvml_abi::kSuccess; }
nvml_abi::Return getCount(unsigned int* count) {
  *count = static_cast<unsigned int>(g_runtime->deviceCount());
  return nvml_abi::kSuccess;
}
nvml_abi::Return getHandleByIndex(unsigned int index, nvml_abi::Device* handle) {
  if (index >= static_cast<unsigned int>(g_runtime->deviceCount())) return 2;
  *handle = reinterpret_cast<nvml_abi::Device>(static_cast<uintptr_t>(index) + 1);
  return nvml_abi::kSuccess;
}
nvml_abi::Return getName(nvml_abi::Device handle, char* name, unsigned int length) {
  sim::Device* d = deviceOf(handle);
  if (!d) return 2;
  std::snprintf(name, length, "%s", d->name.c_str());
  return nvml_abi::kSuccess;
}
nvml_abi::Return getMemoryInfo(nvml_abi::Device handle, nvml_abi::Memory* memory) {
  sim::Device* d = deviceOf(handle);
  if (!d) return 2;
  memory->total = d->memory->capacity();
  memory->used = d->memory->used();
  memory->free = memory->total - memory->used;
  return nvml_abi::kSuccess;
}
nvml_abi::Return getUtilizationRates(nvml_abi::Device handle, nvml_abi::Utilization* utilization) {
  sim::Device* d = deviceOf(handle);
  if (!d) return 2;
  std::lock_guard lock(g_mutex);
  const double u = sampled(*d).utilization;
  utilization->gpu = static_cast<unsigned int>(std::lround(100.0 * u));
  utilization->memory = static_cast<unsigned int>(std::lround(40.0 * u));
  return nvml_abi::kSuccess;
}
nvml_abi::Return getPciInfo(nvml_abi::Device handle, nvml_abi::PciInfo* pci) {
  sim::Device* d = deviceOf(handle);
  if (!d) return 2;
  std::memset(pci, 0, sizeof *pci);
  std::snprintf(pci->busId, sizeof pci->busId, "%s", d->busId.c_str());
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%s", d->busId.substr(4).c_str());
  return nvml_abi::kSuccess;
}
nvml_abi::Return getDriverVersion(char* version, unsigned int length) {
  std::snprintf(version, length, "simulated");
  return nvml_abi::kSuccess;
}
const char* errorString(nvml_abi::Return code) { return code == 2 ? "invalid argument" : "unknown error"; }
nvml_abi::Return getTemperature(nvml_abi::Device handle, int sensor, unsigned int* celsius) {
  sim::Device* d = deviceOf(handle);
  if (!d || sensor != 0) return 2;
  std::lock_guard lock(g_mutex);
  *celsius = static_cast<unsigned int>(std::lround(sampled(*d).temperature));
  return nvml_abi::kSuccess;
}
nvml_abi::Return getPowerUsage(nvml_abi::Device handle, unsigned int* milliwatts) {
  sim::Device* d = deviceOf(handle);
  if (!d) return 2;
  std::lock_guard lock(g_mutex);
  *milliwatts = static_cast<unsigned int>(std::lround(1000.0 * (65.0 + 285.0 * sampled(*d).utilization)));
  return nvml_abi::kSuccess;
}

}  // namespace

const nvml_abi::Api& simulatedNvmlApi() {
  static const nvml_abi::Api api = [] {
    GpuRuntime& runtime = gpuRuntime();  // throws on a bad NETSMITH_SIMULATED_GPUS
    g_runtime = runtime.simulated() ? static_cast<sim::SimulatedRuntime*>(&runtime) : nullptr;
    NS_CHECK(g_runtime, "the simulated GPUs' NVML was asked for without NETSMITH_SIMULATED_GPUS");
    nvml_abi::Api a;
    a.init = init;
    a.shutdown = shutdown;
    a.getCount = getCount;
    a.getHandleByIndex = getHandleByIndex;
    a.getName = getName;
    a.getMemoryInfo = getMemoryInfo;
    a.getUtilizationRates = getUtilizationRates;
    a.getPciInfoV3 = getPciInfo;
    a.getDriverVersion = getDriverVersion;
    a.errorString = errorString;
    a.getTemperature = getTemperature;
    a.getPowerUsage = getPowerUsage;
    return a;
  }();
  return api;
}

}  // namespace netsmith::cuda
