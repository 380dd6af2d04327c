#include "engine/backend/cuda/gpu_runtime.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "engine/core/error.h"

namespace netsmith::cuda {
namespace {

bool truthy(const char* value) { return value && *value && std::string(value) != "0"; }

// NETSMITH_SIMULATED_GPUS as a device count, or -1 with *why set.
int simulatedDeviceCount(std::string* why) {
  const char* text = std::getenv("NETSMITH_SIMULATED_GPUS");
  if (!text || !*text) return 0;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > 8) {
    *why = format("NETSMITH_SIMULATED_GPUS=\"{}\": expected a number of simulated GPUs from 1 to 8", text);
    return -1;
  }
  return static_cast<int>(n);
}

}  // namespace

bool simulatedGpusRequested() {
  const char* text = std::getenv("NETSMITH_SIMULATED_GPUS");
  return text && *text;
}

void throwCudaError(cudaError_t status, const char* call, const char* file, int line) {
  GpuRuntime& runtime = gpuRuntime();
  const std::string detail = runtime.lastErrorDetail();
  NS_THROW("CUDA error {} ({}) in {} at {}:{}{}", runtime.errorName(status), runtime.errorString(status), call, file,
           line, detail.empty() ? "" : ": " + detail);
}

void throwNcclError(ncclResult_t status, const char* call, const char* file, int line) {
  GpuRuntime& runtime = gpuRuntime();
  std::string detail = runtime.lastErrorDetail();
  if (detail.empty()) detail = runtime.ncclLastError(nullptr);
  NS_THROW("NCCL error {} in {} at {}:{}{}", runtime.ncclErrorString(status), call, file, line,
           detail.empty() ? "" : ": " + detail);
}

GpuRuntime& gpuRuntime() {
  static std::mutex mutex;
  static GpuRuntime* runtime = nullptr;
  std::lock_guard lock(mutex);
  if (runtime) return *runtime;
  std::string why;
  const int simulated = simulatedDeviceCount(&why);
  NS_CHECK(simulated >= 0, "{}", why);
  // Note [GPU numbering]: before the first call into either runtime.
  setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
  if (simulated > 0) {
    SimulatorOptions options;
    options.devices = simulated;
    options.jitter = truthy(std::getenv("NETSMITH_SIMULATED_GPU_JITTER"));
    if (const char* seed = std::getenv("NETSMITH_SIMULATED_GPU_SEED")) options.seed = std::strtoull(seed, nullptr, 10);
    if (const char* mb = std::getenv("NETSMITH_SIMULATED_GPU_MEMORY_MB")) {
      const long long value = std::atoll(mb);
      NS_CHECK(value >= 64, "NETSMITH_SIMULATED_GPU_MEMORY_MB=\"{}\": expected at least 64 (MiB per simulated GPU)", mb);
      options.memoryMb = value;
    }
    if (const char* arch = std::getenv("NETSMITH_SIMULATED_GPU_ARCH")) {
      unsigned major = 0, minor = 0;
      char rest = 0;
      NS_CHECK(std::sscanf(arch, "%u.%u%c", &major, &minor, &rest) == 2 && major >= 1 && major <= 20 && minor <= 9,
               "NETSMITH_SIMULATED_GPU_ARCH=\"{}\": expected a compute capability such as 8.6", arch);
      options.computeCapability = static_cast<int>(major * 10 + minor);
    }
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) options.visibleDevices = visible;
    if (const char* lag = std::getenv("NETSMITH_SIMULATED_GPU_LAG_US")) {
      char* end = nullptr;
      const long long us = std::strtoll(lag, &end, 10);
      NS_CHECK(*lag && *end == '\0' && us >= 0 && us <= 10'000'000,
               "NETSMITH_SIMULATED_GPU_LAG_US=\"{}\": expected microseconds from 0 to 10000000", lag);
      options.lag = std::chrono::microseconds(us);
    }
    if (const char* sync = std::getenv("NETSMITH_SIMULATED_GPU_ALLOC_SYNC")) {
      NS_CHECK(std::string(sync) == "0" || std::string(sync) == "1",
               "NETSMITH_SIMULATED_GPU_ALLOC_SYNC=\"{}\": expected 1 (allocations synchronize, the default) or 0", sync);
      options.allocationsSynchronize = std::string(sync) == "1";
    }
    if (const char* fails = std::getenv("NETSMITH_SIMULATED_NCCL_INIT_FAILS")) {
      char* end = nullptr;
      const long ordinal = std::strtol(fails, &end, 10);
      NS_CHECK(*fails && *end == '\0' && ordinal >= 0 && ordinal < simulated,
               "NETSMITH_SIMULATED_NCCL_INIT_FAILS=\"{}\": expected the CUDA ordinal of a simulated GPU (0 to {})", fails,
               simulated - 1);
      options.ncclInitFailure = static_cast<int>(ordinal);
    }
    const char* order = std::getenv("CUDA_DEVICE_ORDER");
    options.pciOrder = order && std::string(order) == "PCI_BUS_ID";
    runtime = makeSimulatedRuntime(options);
  } else {
    runtime = makeRealRuntime();
  }
  return *runtime;
}

}  // namespace netsmith::cuda
